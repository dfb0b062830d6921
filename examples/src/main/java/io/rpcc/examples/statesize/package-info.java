/**
 * The papers' figure 10 ({@link io.rpcc.examples.statesize.StateSize}): a chain that carries a state of
 * growing size against plain RPCs that leave it at the client.
 */
package io.rpcc.examples.statesize;
