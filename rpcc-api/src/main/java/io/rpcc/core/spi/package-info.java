/**
 * The service-provider interface of rpcc: the contract a chaining-function language plug-in
 * implements and the few services of the node it may use. It is for the authors of such plug-ins,
 * not for applications; rpcc's own {@code rpcc-function-java} (Java, compiled with
 * {@code javax.tools} and sandboxed by bytecode instrumentation) and {@code rpcc-js} (JavaScript on
 * GraalJS) implement it, and import nothing of rpcc but its API and this package.
 *
 * <p>A plug-in provides a {@link io.rpcc.core.spi.FunctionCompilerProvider}, registered for
 * {@link java.util.ServiceLoader} in {@code META-INF/services/io.rpcc.core.spi.FunctionCompilerProvider};
 * each node asks it for a {@link io.rpcc.core.spi.FunctionCompiler} (with the node's
 * {@link io.rpcc.core.spi.CompilerSettings}), which turns sources into
 * {@link io.rpcc.core.spi.CompiledFunction}s that the node caches and runs. A plug-in reports what
 * goes wrong with a {@link io.rpcc.core.spi.FunctionFailure} of a public
 * {@link io.rpcc.core.ChainErrorCode}, which the node turns into the hop's failure; a sandbox
 * breaks a function off with a {@link io.rpcc.core.spi.SandboxViolation}. For sandboxes it offers
 * the shared platform threads ({@link io.rpcc.core.spi.FunctionThreads}), the wall clock of an
 * invocation that leaves out the waits for the chain's reader ({@link io.rpcc.core.spi.WallClock}),
 * a watcher for guest code that cannot be instrumented ({@link io.rpcc.core.spi.MonitoredExecution}),
 * the class path a function class loader sees ({@link io.rpcc.core.spi.LoaderClassPath}) and bounded
 * failure texts ({@link io.rpcc.core.spi.FunctionText}).
 *
 * <p>{@link io.rpcc.core.spi.EngineSpi} marks the other contract, between rpcc's own modules: the
 * internal types one layer offers the next (transport to runtime, runtime to the client and server).
 * Plug-ins do not use those.
 *
 * <p>Compatibility: supported, but {@link io.rpcc.core.UnstableApi unstable}: it changes only with
 * rpcc's own plug-ins, may change in a minor release (listed in the CHANGELOG) and follows no
 * deprecation period before 1.0. A plug-in is built for one rpcc version; use the version of
 * {@code rpcc-bom} for all of them.
 */
@UnstableApi
@NullMarked
package io.rpcc.core.spi;

import io.rpcc.core.UnstableApi;
import org.jspecify.annotations.NullMarked;
