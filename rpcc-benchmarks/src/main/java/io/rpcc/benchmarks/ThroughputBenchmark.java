package io.rpcc.benchmarks;

import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.ReferenceCountUtil;
import io.rpcc.client.AtomicCompletion;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Throughput on loopback: operations per second with N requests in flight, on one connection and on
 * several, for rpcc's plain calls and chains against gRPC-java unary calls of the same shape and a raw
 * Netty length-prefixed echo (the transport's limit); with allocation per operation and latency
 * percentiles. A runner with a {@code main}, not a JMH benchmark: a closed loop keeps N operations in
 * flight (each one that ends starts the next), and every cell of the matrix (variant × connections ×
 * in flight) is measured once per round, the rounds interleaving the variants so that they share the
 * machine's drift; the report gives the median of the rounds.
 *
 * <p>It uses only rpcc's public API ({@link RpccServer}, {@link RpccClient}, {@link ChainCall},
 * {@link StaticRoute}), so that {@code compare-builds.sh} can compile it once and run it against the
 * jars of an older or a newer build. {@code --help} lists the options; {@code docs/benchmarks.md} what
 * each row means.
 *
 * <p>Allocation per operation is the whole JVM's ({@code com.sun.management.ThreadMXBean}'s
 * allocated bytes of every thread, those that ended included) over the measured window, divided by
 * the operations that ended in it: servers, clients and this runner's own closed loop (a few small
 * objects per operation, the same for every build).
 */
public final class ThroughputBenchmark {
    static final String USAGE = """
            Usage: ThroughputBenchmark [options]
              --variants LIST      comma-separated, default all: %s
              --in-flight LIST     operations in flight, default 1,16,128
              --connections LIST   connections (clients) the operations spread over, default 1,4;
                                   a cell with fewer in flight than connections is skipped
              --rounds N           rounds over the whole matrix, default 3 (the report: median of rounds)
              --seconds S          measured seconds per cell and round, default 1 (longer until as many
                                   operations as are in flight have ended in the window)
              --warmup S           unmeasured seconds before each cell's window, default 0.25 (longer until
                                   as many operations as are in flight have ended)
              --initial-warmup S   seconds per variant (16 in flight) before the first round, default 10
                                   (the JIT takes 20-30 s on 2 cores to settle rpcc's path: shorter
                                   warm-ups measure compilation, rounds getting faster as they go)
              --payload BYTES      payload of each request (and reply), default 64
              --executor E         where rpcc servers run service functions and clients complete results:
                                   virtual (the default executor) or direct (the event loop; gRPC's
                                   servers and channels then use directExecutor())
              --event-loops L      shared (rpcc's shared loops, the default) or perNode (one loop per node)
              --outcome-cache C    on (the default) or off: whether servers keep hop outcomes for retried chains
              --transport LIST     default (rpcc's nodes as their builder has it; the echo and per-node
                                   loops on NIO), nio or epoll (rpcc's nodes, the echo and per-node loops
                                   all on that transport); a list (nio,epoll) runs each rpcc variant and the
                                   echo once per transport side by side in this JVM ("plain@epoll"), with
                                   each transport's ratio to the first; gRPC runs once, on the epoll of its
                                   own shaded Netty where that loads, whatever this says
              --csv FILE           also write one row per cell and round (for compare-builds.sh)
              --label TEXT         the build column of the CSV rows, default "run"
              --quiet              no progress lines on stderr
            """;

    /** Every variant, in the report's order. */
    static final List<String> VARIANTS = List.of("netty", "plain", "chain1", "chain2", "atomic2", "atomic2d", "chain5", "chain100", "seq2", "seq5",
            "grpc", "grpc2", "grpc5");

    /** Latencies recorded per cell (more are counted, not recorded). */
    private static final int LATENCY_CAPACITY = 1 << 21;

    /** How long a cell's warm-up or window may be extended to see each slot end an operation. */
    private static final int MAX_EXTENSION_SECONDS = 60;

    /** Failed operations after which a cell stops (a failed one is counted, reported and replaced). */
    private static final int MAX_ERRORS = 100;

    private ThroughputBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.printf(USAGE, String.join(",", VARIANTS));
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.printf(USAGE, String.join(",", VARIANTS));
            return;
        }
        Report report = run(options, options.quiet ? null : System.err);
        System.out.print(report.markdown());
        System.out.flush();
        System.exit(report.errors().isEmpty() ? 0 : 1);
    }

    /** Runs the matrix {@code options} select; progress on {@code progress} unless null. */
    static Report run(Options options, PrintStream progress) throws Exception {
        // one set of nodes per transport, side by side in this JVM; gRPC (its own transport) only in the first, its
        // cells without a transport in their names
        Map<String, Setup> setups = new LinkedHashMap<>();
        try (AutoCloseable closeAll = () -> closeAll(setups.values())) {
            for (BenchTransport t : options.transports) {
                List<String> variants = setups.isEmpty() ? options.variants
                        : options.variants.stream().filter(v -> !v.startsWith("grpc")).toList();
                Setup setup = new Setup(options, t, variants);
                setups.put(options.suffix(t), setup);
                setup.start();
            }
            List<Cell> cells = new ArrayList<>();
            for (String v : options.variants) {
                for (Map.Entry<String, Setup> e : setups.entrySet()) {
                    if (!e.getValue().variants.containsKey(v)) {
                        continue;
                    }
                    for (int conns : options.connections) {
                        for (int inFlight : options.inFlight) {
                            if (inFlight >= conns) {
                                cells.add(new Cell(v.startsWith("grpc") ? v : v + e.getKey(), conns, inFlight));
                            }
                        }
                    }
                }
            }
            Report report = new Report(options, cells, environment());
            if (progress != null) {
                progress.println(report.environment);
            }
            for (String v : options.variants) {
                for (Setup setup : setups.values()) {
                    if (options.initialWarmup > 0 && setup.variants.containsKey(v)) {
                        Measurement m = measure(setup.variant(v), 1, 16, options.initialWarmup, 0, setup.latencies);
                        if (m.error != null) {
                            report.error(v + " (initial warm-up), " + m.errors + " failed", m.error);
                        }
                    }
                }
            }
            for (int round = 1; round <= options.rounds; round++) {
                List<Cell> order = new ArrayList<>(cells);
                if (round % 2 == 0) {
                    java.util.Collections.reverse(order); // alternate, so no variant always follows the same one
                }
                for (Cell cell : order) {
                    int at = cell.variant.indexOf('@');
                    Setup setup = at < 0 ? setups.values().iterator().next() : setups.get(cell.variant.substring(at));
                    Measurement m = measure(setup.variant(at < 0 ? cell.variant : cell.variant.substring(0, at)),
                            cell.connections, cell.inFlight, options.warmup, options.seconds, setup.latencies);
                    report.add(cell, round, m);
                    if (m.error != null) {
                        report.error(cell + " round " + round + ", " + m.errors + " failed", m.error);
                    }
                    if (progress != null) {
                        progress.printf(Locale.ROOT, "round %d/%d  %-9s conns %d  in flight %3d  %,12.0f ops/s  %,9.0f B/op  p50 %,8.1f µs%s%n",
                                round, options.rounds, cell.variant, cell.connections, cell.inFlight, m.opsPerSecond(),
                                m.bytesPerOp(), m.p50Micros, m.error == null ? "" : "  ERROR " + m.error);
                    }
                }
            }
            if (options.csv != null) {
                Files.writeString(options.csv, report.csv(options.label));
            }
            return report;
        }
    }

    private static void closeAll(Iterable<Setup> setups) {
        for (Setup s : setups) {
            s.close();
        }
    }

    static String environment() {
        Runtime rt = Runtime.getRuntime();
        var location = RpccClient.class.getProtectionDomain().getCodeSource();
        return String.format(Locale.ROOT, "java %s, %d cpus, max heap %d MB, rpcc from %s", System.getProperty("java.version"),
                rt.availableProcessors(), rt.maxMemory() >> 20, location == null ? "?" : location.getLocation());
    }

    // ---- measuring one cell ----

    /** Ends one operation: {@code error} null if it succeeded. */
    interface Done {
        void done(Throwable error);
    }

    /** One kind of operation, started asynchronously over connection {@code conn}. */
    interface Variant {
        void start(int conn, Done done);
    }

    /** What one cell measured in one round. */
    record Measurement(long ops, double seconds, long bytes, long cpuNanos, double p50Micros, double p99Micros, long total,
                       long errors, Throwable error) {
        double opsPerSecond() {
            return seconds > 0 ? ops / seconds : 0;
        }

        double bytesPerOp() {
            return ops > 0 ? (double) bytes / ops : Double.NaN;
        }

        /** CPU time the whole process spent per operation, in microseconds (every thread, the JIT's and GC's too). */
        double cpuMicrosPerOp() {
            return ops > 0 && cpuNanos >= 0 ? cpuNanos / 1e3 / ops : Double.NaN;
        }
    }

    /**
     * Keeps {@code inFlight} operations of {@code variant} going over {@code conns} connections for
     * {@code warmup} seconds, then counts, for {@code seconds}, the operations that end, the bytes the
     * JVM allocates and each operation's latency; then lets those in flight finish.
     */
    static Measurement measure(Variant variant, int conns, int inFlight, double warmup, double seconds, long[] latencies)
            throws InterruptedException {
        ClosedLoop loop = new ClosedLoop(variant, conns, inFlight, latencies);
        loop.begin();
        sleep(warmup);
        // a slow variant with many in flight (a 100-hop chain, 128 at once) takes seconds per operation:
        // the warm-up lasts until every slot has ended one, and the window until as many have ended in it
        awaitOps(loop, inFlight, 0);
        long ops0 = loop.completed.sum();
        long bytes0 = allocatedBytes();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        loop.recording = true;
        sleep(seconds);
        awaitOps(loop, inFlight, ops0);
        loop.recording = false;
        long t1 = System.nanoTime();
        long bytes1 = allocatedBytes();
        long cpu1 = processCpuNanos();
        long ops1 = loop.completed.sum();
        loop.running = false;
        Throwable stuck = null;
        if (!loop.drained.await(120, TimeUnit.SECONDS)) {
            stuck = new IllegalStateException(loop.outstanding.get() + " operations still in flight 120 s after the window");
            loop.errors.increment();
        }
        int n = Math.min(loop.recorded.get(), latencies.length);
        Arrays.sort(latencies, 0, n);
        Throwable error = loop.error.get();
        return new Measurement(ops1 - ops0, (t1 - t0) / 1e9, bytes1 - bytes0, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0,
                percentile(latencies, n, 0.50),
                percentile(latencies, n, 0.99), loop.completed.sum(), loop.errors.sum(), error != null ? error : stuck);
    }

    /** Waits, at most {@link #MAX_EXTENSION_SECONDS}, until {@code ops} operations have ended since {@code since}. */
    private static void awaitOps(ClosedLoop loop, int ops, long since) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_EXTENSION_SECONDS);
        while (loop.completed.sum() - since < ops && loop.error.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private static double percentile(long[] sorted, int n, double p) {
        if (n == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(n - 1, (int) Math.ceil(p * n) - 1)] / 1e3;
    }

    private static void sleep(double seconds) throws InterruptedException {
        if (seconds > 0) {
            Thread.sleep((long) (seconds * 1000));
        }
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** CPU time the process has used so far (user and system), or -1 where the JVM cannot tell. */
    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    /** Bytes the JVM's threads have allocated so far (ended threads included where the JVM can). */
    static long allocatedBytes() {
        long total = THREADS.getTotalThreadAllocatedBytes();
        if (total >= 0) {
            return total;
        }
        long sum = 0;
        for (long b : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    /** N slots, each starting its next operation when its last one ends. */
    private static final class ClosedLoop {
        final Variant variant;
        final int conns;
        final int inFlight;
        final long[] latencies;
        final LongAdder completed = new LongAdder();
        final AtomicInteger recorded = new AtomicInteger();
        final AtomicInteger outstanding;
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final LongAdder errors = new LongAdder();
        final CountDownLatch drained = new CountDownLatch(1);
        volatile boolean running = true;
        volatile boolean recording;

        ClosedLoop(Variant variant, int conns, int inFlight, long[] latencies) {
            this.variant = variant;
            this.conns = conns;
            this.inFlight = inFlight;
            this.latencies = latencies;
            this.outstanding = new AtomicInteger(inFlight);
        }

        void begin() {
            for (int slot = 0; slot < inFlight; slot++) {
                launch(slot);
            }
        }

        void launch(int slot) {
            long start = System.nanoTime();
            try {
                variant.start(slot % conns, e -> ended(slot, start, e));
            } catch (RuntimeException | Error e) {
                ended(slot, start, e);
            }
        }

        void ended(int slot, long start, Throwable e) {
            if (e != null) {
                error.compareAndSet(null, e);
                errors.increment();
                if (errors.sum() >= MAX_ERRORS) {
                    running = false; // not a tight loop of failures
                }
            } else {
                long now = System.nanoTime();
                completed.increment();
                if (recording) {
                    int i = recorded.getAndIncrement();
                    if (i < latencies.length) {
                        latencies[i] = now - start;
                    }
                }
            }
            if (running) {
                launch(slot);
            } else if (outstanding.decrementAndGet() == 0) {
                drained.countDown();
            }
        }
    }

    // ---- the systems under test ----

    /** The servers, clients and channels every variant runs over, made once per run. */
    private static final class Setup implements AutoCloseable {
        final Options options;
        final long[] latencies = new long[LATENCY_CAPACITY];
        final String payload;
        final byte[] payloadBytes;
        final StaticNameResolver names = new StaticNameResolver();
        final List<AutoCloseable> closeables = new ArrayList<>();
        final List<EventLoopGroup> ownLoops = new ArrayList<>();
        final Map<String, Variant> variants = new LinkedHashMap<>();
        RpccClient[] clients;
        ManagedChannel[][] grpcChannels;
        NettyEcho netty;

        final BenchTransport transport;
        final List<String> variantNames;

        Setup(Options options, BenchTransport transport, List<String> variantNames) {
            this.options = options;
            this.transport = transport;
            this.variantNames = variantNames;
            this.payload = "x".repeat(options.payload);
            this.payloadBytes = payload.getBytes(StandardCharsets.UTF_8);
        }

        Variant variant(String name) {
            return Objects.requireNonNull(variants.get(name), name);
        }

        void start() {
            int maxConns = options.connections.stream().mapToInt(Integer::intValue).max().orElse(1);
            int rpccServers = 0;
            int grpcServers = 0;
            for (String v : variantNames) {
                int servers = v.endsWith("100") || v.endsWith("5") ? 5 : v.endsWith("2") ? 2 : 1;
                if (v.startsWith("grpc")) {
                    grpcServers = Math.max(grpcServers, servers);
                } else if (!v.equals("netty")) {
                    rpccServers = Math.max(rpccServers, servers);
                }
            }
            String[] servers = new String[rpccServers];
            for (int i = 0; i < rpccServers; i++) {
                servers[i] = "s" + (i + 1);
                // the default sandbox, but a long wall-time limit: with thousands of hops in flight on a busy
                // machine the route's chaining function can wait past the default 2 s and fail its chain
                RpccServer.Builder b = transport.apply(RpccServer.builder(servers[i])).resolver(names).eventLoopGroup(loops())
                        .service("echo", p -> p).sandbox(new SandboxLimits(SandboxLimits.DEFAULT.cpuTime(),
                                SandboxLimits.DEFAULT.allocatedBytes(), Duration.ofSeconds(60)));
                if (options.direct()) {
                    b.executor(Runnable::run);
                }
                if (options.outcomeCache.equals("off")) {
                    b.outcomeCache(0, 0, Duration.ZERO);
                }
                RpccServer s = b.build().start();
                closeables.add(s);
                names.register(servers[i], s.address());
            }
            if (rpccServers > 0) {
                clients = new RpccClient[maxConns];
                for (int c = 0; c < maxConns; c++) {
                    RpccClient.Builder cb = transport.apply(RpccClient.builder()).name("bench-client-" + c).resolver(names).eventLoopGroup(loops());
                    if (options.direct()) {
                        cb.executor(Runnable::run); // results complete on the client's event loop
                    }
                    clients[c] = cb.build().start();
                    closeables.add(clients[c]);
                }
            }
            GrpcEcho[] grpc = new GrpcEcho[grpcServers];
            grpcChannels = new ManagedChannel[grpcServers][maxConns];
            for (int i = 0; i < grpcServers; i++) {
                grpc[i] = GrpcEcho.start(options.direct());
                closeables.add(grpc[i]);
                for (int c = 0; c < maxConns; c++) {
                    grpcChannels[i][c] = grpc[i].newChannel(options.direct());
                    ManagedChannel ch = grpcChannels[i][c];
                    closeables.add(() -> {
                        ch.shutdownNow();
                        ch.awaitTermination(5, TimeUnit.SECONDS);
                    });
                }
            }
            for (String v : variantNames) {
                Variant variant = switch (v) {
                    case "netty" -> {
                        netty = new NettyEcho(maxConns, payloadBytes, transport);
                        closeables.add(netty);
                        yield netty::call;
                    }
                    case "plain" -> (conn, done) -> clients[conn].call("s1", "echo", payload)
                            .whenComplete((r, e) -> done.done(e != null ? e : check(r.value())));
                    case "seq2", "seq5" -> sequentialCalls(servers, Integer.parseInt(v.substring(3)));
                    case "grpc" -> grpcCalls(1);
                    case "grpc2", "grpc5" -> grpcCalls(Integer.parseInt(v.substring(4)));
                    default -> {
                        // atomicN: chainN as an atomic chain (a transaction across its hops: votes, decision, acks);
                        // atomicNd: the same, its future complete at the decision (AtomicCompletion.DECIDED)
                        boolean atomic = v.startsWith("atomic");
                        if (!v.startsWith("chain") && !atomic) {
                            throw new IllegalArgumentException("unknown variant " + v);
                        }
                        boolean decided = atomic && v.endsWith("d");
                        int hops = Integer.parseInt(v.substring(atomic ? 6 : 5, v.length() - (decided ? 1 : 0)));
                        List<StaticRoute.Hop> route = new ArrayList<>();
                        for (int h = 0; h < hops; h++) {
                            route.add(StaticRoute.hop(servers[h % servers.length], "echo"));
                        }
                        ChainCall along = ChainCall.along(StaticRoute.of(route), payload).interactive(false);
                        ChainCall call = !atomic ? along
                                : along.atomic(decided ? AtomicCompletion.DECIDED : AtomicCompletion.APPLIED);
                        yield (conn, done) -> clients[conn].startChain(call)
                                .whenComplete((r, e) -> done.done(e != null ? e : check(r.value())));
                    }
                };
                variants.put(v, variant);
            }
            // connect every client and channel, compile the route's chaining function, check each result once
            for (String v : variantNames) {
                for (int c = 0; c < maxConns; c++) {
                    CountDownLatch one = new CountDownLatch(1);
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    variants.get(v).start(c, e -> {
                        failure.set(e);
                        one.countDown();
                    });
                    try {
                        if (!one.await(60, TimeUnit.SECONDS)) {
                            throw new IllegalStateException(v + ": the first operation did not end in 60 s");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                    if (failure.get() != null) {
                        throw new IllegalStateException(v + ": the first operation failed", failure.get());
                    }
                }
            }
        }

        private Throwable check(Object value) {
            return payload.equals(value) ? null : new IllegalStateException("wrong result: " + value);
        }

        private Variant sequentialCalls(String[] servers, int calls) {
            return new Variant() {
                @Override
                public void start(int conn, Done done) {
                    next(conn, 0, payload, done);
                }

                private void next(int conn, int i, Object params, Done done) {
                    clients[conn].call(servers[i], "echo", params).whenComplete((r, e) -> {
                        if (e != null) {
                            done.done(e);
                        } else if (i + 1 == calls) {
                            done.done(check(r.value()));
                        } else {
                            next(conn, i + 1, r.value(), done);
                        }
                    });
                }
            };
        }

        private Variant grpcCalls(int calls) {
            return new Variant() {
                @Override
                public void start(int conn, Done done) {
                    next(conn, 0, payloadBytes, done);
                }

                private void next(int conn, int i, byte[] request, Done done) {
                    GrpcEcho.call(grpcChannels[i][conn], request, new StreamObserver<>() {
                        private byte[] reply;

                        @Override
                        public void onNext(byte[] value) {
                            reply = value;
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.done(t);
                        }

                        @Override
                        public void onCompleted() {
                            if (i + 1 == calls) {
                                done.done(Arrays.equals(reply, payloadBytes) ? null : new IllegalStateException("wrong reply"));
                            } else {
                                next(conn, i + 1, reply, done);
                            }
                        }
                    });
                }
            };
        }

        /** A loop of the node's own ({@code perNode}), or {@code null}: rpcc's shared loops. */
        private EventLoopGroup loops() {
            if (!options.eventLoops.equals("perNode")) {
                return null;
            }
            EventLoopGroup own = transport.newGroup(1);
            ownLoops.add(own);
            return own;
        }

        @Override
        public void close() {
            for (int i = closeables.size() - 1; i >= 0; i--) {
                try {
                    closeables.get(i).close();
                } catch (Exception e) {
                    System.err.println("closing: " + e);
                }
            }
            ownLoops.forEach(g -> g.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        }
    }

    /**
     * A raw Netty echo: the client writes a 4-byte length and the payload (one flush per request), the
     * server writes each frame back as it is; replies come in order, so each ends the oldest request.
     * Each side has one event loop of its own.
     */
    static final class NettyEcho implements AutoCloseable {
        private final EventLoopGroup serverLoop;
        private final EventLoopGroup clientLoop;
        private final byte[] payload;
        private final Channel server;
        private final Channel[] channels;

        NettyEcho(int connections, byte[] payload, BenchTransport transport) {
            this.payload = payload;
            this.serverLoop = transport.newGroup(1);
            this.clientLoop = transport.newGroup(1);
            server = new ServerBootstrap().group(serverLoop).channel(transport.serverChannel())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 0),
                                    new ChannelInboundHandlerAdapter() {
                                        @Override
                                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                            ctx.writeAndFlush(msg);
                                        }
                                    });
                        }
                    }).bind("127.0.0.1", 0).syncUninterruptibly().channel();
            channels = new Channel[connections];
            for (int c = 0; c < connections; c++) {
                channels[c] = new Bootstrap().group(clientLoop).channel(transport.channel())
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel ch) {
                                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4), new Replies());
                            }
                        }).connect(server.localAddress()).syncUninterruptibly().channel();
            }
        }

        void call(int conn, Done done) {
            Channel ch = channels[conn];
            if (ch.eventLoop().inEventLoop()) {
                send(ch, done);
            } else {
                ch.eventLoop().execute(() -> send(ch, done));
            }
        }

        private void send(Channel ch, Done done) {
            if (!ch.isActive()) {
                done.done(new IllegalStateException("the echo connection is closed"));
                return;
            }
            ch.pipeline().get(Replies.class).pending.add(done);
            ByteBuf frame = ch.alloc().buffer(4 + payload.length);
            frame.writeInt(payload.length).writeBytes(payload);
            ch.writeAndFlush(frame, ch.voidPromise());
        }

        /** Ends the oldest request per reply; fails them all if the connection closes. */
        private static final class Replies extends ChannelInboundHandlerAdapter {
            final ArrayDeque<Done> pending = new ArrayDeque<>();

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                Done done = pending.poll();
                if (done != null) {
                    done.done(null);
                }
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                Done done;
                while ((done = pending.poll()) != null) {
                    done.done(new IllegalStateException("the echo connection closed"));
                }
            }
        }

        @Override
        public void close() {
            for (Channel ch : channels) {
                ch.close().syncUninterruptibly();
            }
            server.close().syncUninterruptibly();
            clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    // ---- options and report ----

    /** A matrix {@link #run} measures, parsed from the command line. */
    static final class Options {
        List<String> variants = VARIANTS;
        List<Integer> inFlight = List.of(1, 16, 128);
        List<Integer> connections = List.of(1, 4);
        int rounds = 3;
        double seconds = 1;
        double warmup = 0.25;
        double initialWarmup = 10;
        int payload = 64;
        String executor = "virtual";
        String eventLoops = "shared";
        String outcomeCache = "on";
        List<BenchTransport> transports = List.of(BenchTransport.DEFAULT);
        Path csv;
        String label = "run";
        boolean quiet;
        boolean help;

        boolean direct() {
            return executor.equals("direct");
        }

        /** What the cells of transport {@code t} add to their variant's name: "@nio", "@epoll"; "" with one transport. */
        String suffix(BenchTransport t) {
            return transports.size() == 1 ? "" : "@" + t.name().toLowerCase(Locale.ROOT);
        }

        static Options parse(String... args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--help") || arg.equals("-h")) {
                    o.help = true;
                    continue;
                }
                if (arg.equals("--quiet")) {
                    o.quiet = true;
                    continue;
                }
                String name = arg;
                String value;
                int eq = arg.indexOf('=');
                if (eq > 0) {
                    name = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                switch (name) {
                    case "--variants" -> {
                        o.variants = List.of(value.split(","));
                        for (String v : o.variants) {
                            if (!VARIANTS.contains(v)) {
                                throw new IllegalArgumentException("unknown variant " + v + " (known: " + VARIANTS + ")");
                            }
                        }
                    }
                    case "--in-flight" -> o.inFlight = ints(value);
                    case "--connections" -> o.connections = ints(value);
                    case "--rounds" -> o.rounds = positive(name, Integer.parseInt(value));
                    case "--seconds" -> o.seconds = Double.parseDouble(value);
                    case "--warmup" -> o.warmup = Double.parseDouble(value);
                    case "--initial-warmup" -> o.initialWarmup = Double.parseDouble(value);
                    case "--payload" -> o.payload = Integer.parseInt(value);
                    case "--executor" -> o.executor = oneOf(name, value, "virtual", "direct");
                    case "--event-loops" -> o.eventLoops = oneOf(name, value, "shared", "perNode");
                    case "--outcome-cache" -> o.outcomeCache = oneOf(name, value, "on", "off");
                    case "--transport" -> {
                        List<BenchTransport> list = new ArrayList<>();
                        for (String t : value.split(",")) {
                            list.add(BenchTransport.parse(oneOf(name, t.trim(), "default", "nio", "epoll")));
                        }
                        o.transports = List.copyOf(list);
                    }
                    case "--csv" -> o.csv = Path.of(value);
                    case "--label" -> o.label = value;
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            return o;
        }

        private static List<Integer> ints(String value) {
            List<Integer> list = new ArrayList<>();
            for (String s : value.split(",")) {
                list.add(positive("a count", Integer.parseInt(s.trim())));
            }
            return List.copyOf(list);
        }

        private static int positive(String name, int n) {
            if (n < 1) {
                throw new IllegalArgumentException(name + " must be at least 1, got " + n);
            }
            return n;
        }

        private static String oneOf(String name, String value, String... allowed) {
            if (!List.of(allowed).contains(value)) {
                throw new IllegalArgumentException(name + " must be one of " + List.of(allowed) + ", got " + value);
            }
            return value;
        }

        String describe() {
            return String.format(Locale.ROOT, "%d rounds × %s s per cell (+%s s warm-up), payload %d B, executor %s, event loops %s, "
                    + "outcome cache %s, transport %s (gRPC: %s)", rounds, seconds, warmup, payload, executor, eventLoops,
                    outcomeCache, transports.stream().map(t -> t.name().toLowerCase(Locale.ROOT)).toList(), BenchTransport.grpc());
        }
    }

    /** One cell of the matrix. */
    record Cell(String variant, int connections, int inFlight) {
        @Override
        public String toString() {
            return variant + " conns " + connections + " in flight " + inFlight;
        }
    }

    /** Every round's measurement per cell, and the tables made from them. */
    static final class Report {
        final Options options;
        final List<Cell> cells;
        final String environment;
        final Map<Cell, List<Measurement>> rounds = new LinkedHashMap<>();
        final List<String> errors = new ArrayList<>();

        Report(Options options, List<Cell> cells, String environment) {
            this.options = options;
            this.cells = cells;
            this.environment = environment;
            cells.forEach(c -> rounds.put(c, new ArrayList<>()));
        }

        void add(Cell cell, int round, Measurement m) {
            rounds.get(cell).add(m);
        }

        void error(String where, Throwable e) {
            errors.add(where + ": " + e);
        }

        List<String> errors() {
            return errors;
        }

        double median(Cell cell, Function<Measurement, Double> f) {
            List<Measurement> ms = rounds.get(cell);
            if (ms == null || ms.isEmpty()) {
                return Double.NaN;
            }
            double[] xs = ms.stream().mapToDouble(f::apply).sorted().toArray();
            int n = xs.length;
            return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
        }

        String markdown() {
            StringBuilder sb = new StringBuilder();
            sb.append("Throughput on loopback: ").append(options.describe()).append('\n').append(environment).append("\n\n");
            sb.append("| variant | connections | in flight | ops/s (median) | rounds: min–max | CPU/op | alloc/op | p50 | p99 |\n");
            sb.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
            for (Cell c : cells) {
                List<Measurement> ms = rounds.get(c);
                double min = ms.stream().mapToDouble(Measurement::opsPerSecond).min().orElse(Double.NaN);
                double max = ms.stream().mapToDouble(Measurement::opsPerSecond).max().orElse(Double.NaN);
                sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %,.0f | %,.0f–%,.0f | %s | %s | %s | %s |%n", c.variant,
                        c.connections, c.inFlight, median(c, Measurement::opsPerSecond), min, max,
                        micros(median(c, Measurement::cpuMicrosPerOp)), bytes(median(c, Measurement::bytesPerOp)), micros(median(c, Measurement::p50Micros)),
                        micros(median(c, Measurement::p99Micros))));
            }
            String ratios = ratios();
            if (!ratios.isEmpty()) {
                sb.append("\nIssue 27's ratios, from the medians above (one connection):\n\n")
                        .append("| ratio | in flight | value |\n| --- | ---: | ---: |\n").append(ratios);
            }
            if (!errors.isEmpty()) {
                sb.append("\nErrors:\n");
                errors.forEach(e -> sb.append("- ").append(e).append('\n'));
            }
            return sb.toString();
        }

        private String ratios() {
            StringBuilder sb = new StringBuilder();
            for (BenchTransport t : options.transports) {
                ratios(sb, options.suffix(t));
            }
            if (options.transports.size() > 1) { // each transport against the first
                String first = options.suffix(options.transports.get(0));
                for (BenchTransport t : options.transports.subList(1, options.transports.size())) {
                    for (String v : options.variants) {
                        for (int n : options.inFlight) {
                            ratio(sb, v + options.suffix(t) + " ops/s ÷ " + v + first + " ops/s", n, v + options.suffix(t),
                                    v + first, Measurement::opsPerSecond, 1, 1);
                        }
                    }
                }
            }
            return sb.toString();
        }

        /** Issue 27's ratios among the cells whose variants end in {@code suffix} (gRPC's: without one). */
        private void ratios(StringBuilder sb, String suffix) {
            for (int n : options.inFlight) {
                ratio(sb, "plain ops/s ÷ netty ops/s" + suffix, n, "plain" + suffix, "netty" + suffix, Measurement::opsPerSecond, 1, 1);
                ratio(sb, "plain ops/s ÷ grpc ops/s" + suffix, n, "plain" + suffix, "grpc" + suffix, Measurement::opsPerSecond, 1, 1);
                ratio(sb, "chain2 ops/s ÷ seq2 ops/s" + suffix, n, "chain2" + suffix, "seq2" + suffix, Measurement::opsPerSecond, 1, 1);
                ratio(sb, "chain5 ops/s ÷ seq5 ops/s" + suffix, n, "chain5" + suffix, "seq5" + suffix, Measurement::opsPerSecond, 1, 1);
                ratio(sb, "chain2 ops/s ÷ grpc2 ops/s" + suffix, n, "chain2" + suffix, "grpc2" + suffix, Measurement::opsPerSecond, 1, 1);
                // per-hop time is 1 / (ops/s × hops): the 100-hop chain's over the 2-hop chain's
                ratio(sb, "per-hop time, chain100 ÷ chain2 (from ops/s)" + suffix, n, "chain2" + suffix, "chain100" + suffix, Measurement::opsPerSecond, 1.0 / 2, 1.0 / 100);
            }
            if (options.inFlight.contains(1)) {
                ratio(sb, "chain2 p50 ÷ seq2 p50" + suffix, 1, "chain2" + suffix, "seq2" + suffix, Measurement::p50Micros, 1, 1);
                ratio(sb, "chain5 p50 ÷ seq5 p50" + suffix, 1, "chain5" + suffix, "seq5" + suffix, Measurement::p50Micros, 1, 1);
                ratio(sb, "per-hop p50, chain100 ÷ chain2" + suffix, 1, "chain100" + suffix, "chain2" + suffix, Measurement::p50Micros, 100, 2);
            }
        }

        /** (a's median / aScale) ÷ (b's median / bScale), on one connection at {@code n} in flight. */
        private void ratio(StringBuilder sb, String name, int n, String a, String b, Function<Measurement, Double> f,
                double aScale, double bScale) {
            Cell ca = new Cell(a, 1, n);
            Cell cb = rounds.containsKey(new Cell(b, 1, n)) ? new Cell(b, 1, n) : new Cell(b.replaceFirst("@.*", ""), 1, n);
            if (!rounds.containsKey(ca) || !rounds.containsKey(cb)) {
                return;
            }
            double value = (median(ca, f) / aScale) / (median(cb, f) / bScale);
            if (!Double.isFinite(value)) {
                return;
            }
            sb.append(String.format(Locale.ROOT, "| %s | %d | %.2f× |%n", name, n, value));
        }

        String csv(String label) {
            StringBuilder sb = new StringBuilder("build,round,variant,connections,in_flight,ops,seconds,ops_per_s,bytes_per_op,p50_us,p99_us,error,cpu_us_per_op\n");
            for (Cell c : cells) {
                List<Measurement> ms = rounds.get(c);
                for (int r = 0; r < ms.size(); r++) {
                    Measurement m = ms.get(r);
                    sb.append(String.format(Locale.ROOT, "%s,%d,%s,%d,%d,%d,%.3f,%.1f,%.0f,%.1f,%.1f,%s,%.1f%n", label, r + 1, c.variant,
                            c.connections, c.inFlight, m.ops, m.seconds, m.opsPerSecond(), m.bytesPerOp(), m.p50Micros,
                            m.p99Micros, m.error == null ? "" : m.errors + " " + m.error.getClass().getSimpleName(),
                            m.cpuMicrosPerOp()));
                }
            }
            return sb.toString();
        }

        private static String bytes(double b) {
            if (Double.isNaN(b)) {
                return "–";
            }
            return b >= 10_000 ? String.format(Locale.ROOT, "%.1f KB", b / 1024) : String.format(Locale.ROOT, "%,.0f B", b);
        }

        private static String micros(double us) {
            if (Double.isNaN(us)) {
                return "–";
            }
            return us >= 10_000 ? String.format(Locale.ROOT, "%,.1f ms", us / 1000) : String.format(Locale.ROOT, "%,.0f µs", us);
        }
    }
}
