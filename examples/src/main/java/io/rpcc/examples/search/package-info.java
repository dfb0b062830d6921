/**
 * Split and merge on the emulated wide area ({@link io.rpcc.examples.search.SplitSearch}): a search
 * over an index sharded across sites, fanned out to every shard at once and merged near the client,
 * against the same search shard after shard.
 */
package io.rpcc.examples.search;
