/**
 * The quickstart ({@link io.rpcc.examples.quickstart.Quickstart}): five servers and a client in one
 * JVM, a checkout chain whose route depends on a server's answer, run in chain mode and then in
 * interactive mode with the same result.
 */
package io.rpcc.examples.quickstart;
