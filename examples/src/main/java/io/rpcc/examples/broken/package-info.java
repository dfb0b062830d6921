/**
 * A node killed mid-chain on the emulated wide area ({@link io.rpcc.examples.broken.BrokenChains}):
 * how soon the client learns that its chain broke, for several heartbeat intervals;
 * {@link io.rpcc.examples.broken.Silence} makes a node die the way a process does.
 */
package io.rpcc.examples.broken;
