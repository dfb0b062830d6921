/**
 * The quickstart's checkout as a continuation-style chaining function and as a sequential chain
 * (straight-line code replayed at each hop), side by side on the emulated WAN: latency and the
 * state each hop carries.
 */
package io.rpcc.examples.sequential;
