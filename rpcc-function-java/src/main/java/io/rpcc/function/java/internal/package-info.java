/**
 * Java chaining functions: {@link io.rpcc.function.java.internal.JavaFunctionCompilerProvider}
 * registers them with every node (through {@link io.rpcc.core.spi.FunctionCompilerProvider});
 * {@link io.rpcc.function.java.internal.JavaFunctionCompiler} compiles Java in memory against the
 * classes the node's function class loader sees ({@link io.rpcc.core.spi.LoaderClassPath},
 * {@link io.rpcc.function.java.internal.LoaderFileManager}) and Java 21's platform API
 * ({@link io.rpcc.function.java.internal.ReleaseFileManager} over the JDK's {@code ct.sym},
 * {@link io.rpcc.function.java.internal.PlatformClasses}, opened once). The sandbox has a static half
 * ({@link io.rpcc.function.java.internal.BytecodeSandbox} checks every class against
 * {@link io.rpcc.function.java.internal.SandboxRules} and instruments it) and a dynamic half
 * ({@link io.rpcc.function.java.internal.Sandbox} runs it under a
 * {@link io.rpcc.function.java.internal.Budget} on a platform thread, and
 * {@link io.rpcc.function.java.internal.SandboxWatchdog} enforces wall time);
 * {@link io.rpcc.function.java.internal.JavaResources} holds the watchdog thread, the platform
 * classes and javac's idle file managers while a node is open.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.function.java.internal;
