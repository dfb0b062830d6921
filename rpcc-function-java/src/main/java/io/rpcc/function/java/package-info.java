/**
 * Java chaining functions for rpcc: the compiler (in memory, with {@code javax.tools}) and the
 * bytecode sandbox (ASM) that a node runs {@link io.rpcc.core.ChainingFunctionSource#java(String)}
 * functions with. Add this module to a node's class path and Java functions run there; rpcc-server
 * depends on it (a server compiles Java functions by default), rpcc-client does not (a client that
 * runs a Java function itself, in interactive mode, needs it added). It plugs in through
 * {@link io.rpcc.core.spi}, as rpcc-js does, and has no API of its own: the check of a function at
 * build time is {@link io.rpcc.core.runtime.FunctionCheck}, which finds this compiler the same way.
 */
package io.rpcc.function.java;
