/**
 * @module
 * A deliberately leaky entry point: it pulls in zod. The bundle test measures it to prove that
 * its dependency check would catch a real leak into the client.
 */
import { z } from "zod";

export const leak = z.string();
