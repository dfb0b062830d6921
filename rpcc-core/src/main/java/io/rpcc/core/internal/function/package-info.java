/**
 * Chaining functions at run time. {@link io.rpcc.core.internal.function.FunctionRuntime} compiles each
 * source once, caches the result and runs it; {@link io.rpcc.core.internal.function.JavaFunctionCompiler}
 * compiles Java in memory against the classes the node's function class loader sees. The Java sandbox
 * has a static half ({@link io.rpcc.core.internal.function.BytecodeSandbox} checks every class against
 * {@link io.rpcc.core.internal.function.SandboxRules} and instruments it) and a dynamic half
 * ({@link io.rpcc.core.internal.function.Sandbox} runs it under a
 * {@link io.rpcc.core.internal.function.Budget} on a platform thread, and
 * {@link io.rpcc.core.internal.function.SandboxWatchdog} enforces wall time);
 * {@link io.rpcc.core.internal.function.MonitoredExecution} watches guest code that cannot be
 * instrumented. Other languages plug in through
 * {@link io.rpcc.core.internal.function.FunctionCompilerProvider}, found with
 * {@link java.util.ServiceLoader} (rpcc-js provides JavaScript this way).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it. rpcc-client, rpcc-server and rpcc-js use it too.
 */
package io.rpcc.core.internal.function;
