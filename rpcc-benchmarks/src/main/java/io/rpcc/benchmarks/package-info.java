/**
 * JMH benchmarks ({@code ./rpcc bench}): chains on loopback against plain calls over the same
 * transport and against a gRPC-java baseline ({@link io.rpcc.benchmarks.ChainBenchmark},
 * {@link io.rpcc.benchmarks.GrpcEcho}), and the cost of compiling and running chaining functions at a
 * server ({@link io.rpcc.benchmarks.FunctionRuntimeBenchmark}); and a throughput runner with a
 * {@code main} ({@code ./rpcc throughput}: {@link io.rpcc.benchmarks.ThroughputBenchmark}), N requests in
 * flight against gRPC-java and a raw Netty echo, which {@code compare-builds.sh} also runs against two
 * builds. {@code docs/benchmarks.md} has the results.
 */
package io.rpcc.benchmarks;
