/**
 * JavaScript chaining functions on GraalJS:
 * {@link io.rpcc.js.internal.JsFunctionCompilerProvider} registers them with every node (through
 * rpcc-core's SPI, {@link io.rpcc.core.spi}), {@link io.rpcc.js.internal.JsFunctionCompiler} parses each source
 * once and runs every invocation in a fresh context, {@link io.rpcc.js.internal.RpccGlobal} is the
 * {@code rpcc} object a function sees, {@link io.rpcc.js.internal.JsValues} maps the chain's values
 * between Java and JavaScript, and {@link io.rpcc.js.internal.Tripwire} stands in for the globals the
 * sandbox removed.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.js.internal;
