/**
 * @module
 * A gateway's datasets (`/gateways/{id}/datasets`): named log filters that evaluations use. The
 * emulator stores them (create, list, get, replace, delete); it runs no evaluations.
 */
import * as z from "zod";

export const datasetFilterSchema = z.object({
  key: z.enum(
    [
      "created_at",
      "request_content_type",
      "response_content_type",
      "success",
      "cached",
      "provider",
      "model",
      "cost",
      "tokens",
      "tokens_in",
      "tokens_out",
      "duration",
      "feedback",
    ],
    { error: "filter key must be a log field such as provider, model, success or feedback" },
  ),
  operator: z.enum(["eq", "contains", "lt", "gt"], {
    error: "filter operator must be eq, contains, lt or gt",
  }),
  value: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
});

export const datasetBodySchema = z.object({
  name: z.string().min(1).max(128),
  enable: z.boolean(),
  filters: z.array(datasetFilterSchema).max(20),
});

export type DatasetBody = z.infer<typeof datasetBodySchema>;

export interface DatasetRecord extends DatasetBody {
  readonly id: string;
  readonly gateway_id: string;
  readonly created_at: string;
  modified_at: string;
}

export class DatasetStore {
  readonly #datasets = new Map<string, DatasetRecord>();

  list(): DatasetRecord[] {
    return [...this.#datasets.values()];
  }

  get(id: string): DatasetRecord | undefined {
    return this.#datasets.get(id);
  }

  put(dataset: DatasetRecord): DatasetRecord {
    this.#datasets.set(dataset.id, dataset);
    return dataset;
  }

  delete(id: string): boolean {
    return this.#datasets.delete(id);
  }
}
