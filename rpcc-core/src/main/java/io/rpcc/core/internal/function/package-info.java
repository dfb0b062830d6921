/**
 * Chaining functions at run time. {@link io.rpcc.core.internal.function.FunctionRuntime} compiles each
 * source once, caches the result and runs it, with the compiler of its language: each language is a
 * plug-in found with {@link java.util.ServiceLoader} through the SPI
 * ({@link io.rpcc.core.spi.FunctionCompilerProvider}): rpcc-function-java provides Java (javac and
 * the bytecode sandbox), rpcc-js JavaScript. What a plug-in raises
 * ({@link io.rpcc.core.spi.FunctionFailure}) becomes the hop's failure here
 * ({@link io.rpcc.core.internal.function.FunctionFailures}).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it. rpcc-client and rpcc-server use it too.
 */
package io.rpcc.core.internal.function;
