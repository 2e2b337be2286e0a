/**
 * @module
 * Groups of calls keyed by the values of some dimensions: {@link GroupIndex} finds an event's
 * group through nested maps (one level per dimension), so a lookup builds no key string and
 * hashes only the short values; {@link project} merges groups into coarser ones.
 */
import {
  type AnalyticsEvent,
  type Dimension,
  dimensionValue,
  type GroupKey,
} from "./dimensions.ts";
import { GroupStats, type GroupStatsState } from "./figures.ts";

/** A group's key and its running figures. */
export interface Group {
  readonly key: GroupKey;
  readonly stats: GroupStats;
}

/**
 * Groups by the values of some dimensions, found through nested maps (one level per dimension),
 * so a lookup builds no key string and hashes only the short values.
 */
export class GroupIndex {
  readonly #dimensions: readonly Dimension[];
  readonly #root = new Map<unknown, unknown>();
  readonly groups: Group[] = [];

  constructor(dimensions: readonly Dimension[]) {
    this.#dimensions = dimensions;
  }

  /** The group of `event`, created on first sight. */
  of(event: AnalyticsEvent): GroupStats {
    const dimensions = this.#dimensions;
    let map = this.#root;
    const last = dimensions.length - 1;
    for (let index = 0; index < last; index += 1) {
      const value = dimensionValue(event, dimensions[index] as Dimension);
      let next = map.get(value) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        map.set(value, next);
      }
      map = next;
    }
    const leaf = last >= 0 ? dimensionValue(event, dimensions[last] as Dimension) : null;
    let group = map.get(leaf) as Group | undefined;
    if (group === undefined) {
      const key: GroupKey = {};
      for (const dimension of dimensions) key[dimension] = dimensionValue(event, dimension);
      group = { key, stats: new GroupStats() };
      map.set(leaf, group);
      this.groups.push(group);
    }
    return group.stats;
  }

  /** The group of `key` (a key of another index over the same dimensions), created on first sight. */
  ofKey(key: GroupKey): GroupStats {
    const dimensions = this.#dimensions;
    let map = this.#root;
    const last = dimensions.length - 1;
    for (let index = 0; index < last; index += 1) {
      const value = key[dimensions[index] as Dimension] ?? null;
      let next = map.get(value) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        map.set(value, next);
      }
      map = next;
    }
    const leaf = last >= 0 ? (key[dimensions[last] as Dimension] ?? null) : null;
    let group = map.get(leaf) as Group | undefined;
    if (group === undefined) {
      const own: GroupKey = {};
      for (const dimension of dimensions) own[dimension] = key[dimension] ?? null;
      group = { key: own, stats: new GroupStats() };
      map.set(leaf, group);
      this.groups.push(group);
    }
    return group.stats;
  }
}

/** A group as plain data (structured-cloneable), to carry it to another thread. */
export interface GroupState {
  readonly key: GroupKey;
  readonly stats: GroupStatsState;
}

/** The groups of an index as plain data. */
export function groupStates(index: GroupIndex): GroupState[] {
  return index.groups.map(({ key, stats }) => ({ key, stats: stats.state() }));
}

/** Adds groups carried as plain data into `index` (over the same dimensions). */
export function mergeGroupStates(index: GroupIndex, states: readonly GroupState[]): void {
  for (const { key, stats } of states) index.ofKey(key).merge(GroupStats.of(stats));
}

/** Merges groups into coarser ones keyed by `dimensions` (a subset of theirs). */
export function project(groups: readonly Group[], dimensions: readonly Dimension[]): Group[] {
  const merged = new Map<string, Group>();
  for (const group of groups) {
    const key: GroupKey = {};
    for (const dimension of dimensions) key[dimension] = group.key[dimension] ?? null;
    const id = JSON.stringify(dimensions.map((dimension) => key[dimension]));
    let into = merged.get(id);
    if (!into) {
      into = { key, stats: new GroupStats() };
      merged.set(id, into);
    }
    into.stats.merge(group.stats);
  }
  return [...merged.values()];
}
