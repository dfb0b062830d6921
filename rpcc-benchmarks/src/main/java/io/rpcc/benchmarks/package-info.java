/**
 * JMH benchmarks ({@code ./rpcc bench}): chains on loopback against plain calls over the same
 * transport and against a gRPC-java baseline ({@link io.rpcc.benchmarks.ChainBenchmark},
 * {@link io.rpcc.benchmarks.GrpcEcho}), and the cost of compiling and running chaining functions at a
 * server ({@link io.rpcc.benchmarks.FunctionRuntimeBenchmark}). {@code docs/benchmarks.md} has the
 * results.
 */
package io.rpcc.benchmarks;
