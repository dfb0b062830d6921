package io.rpcc.examples.aggregation;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The Quatrain aggregation scenario: an aggregator gathers records from several sources whose
 * response times differ, one of them a straggler. With a single return, the client gets every
 * record when the last one is ready; with {@code preturn}, each record goes to the client as soon
 * as the aggregator has it. The metric is the average arrival time (AAT) of the records at the
 * client (Quatrain section 5): the mean, over records, of the delay from the request to the
 * record's arrival. {@code ideal} is the AAT of the scenario's own production times with zero
 * network and processing time.
 *
 * <pre>
 * java -jar examples/target/rpcc-examples.jar aggregation [--json] [--rounds N]
 * </pre>
 */
public final class Aggregation {
    private Aggregation() {
    }

    /**
     * One measured variant.
     *
     * @param variant {@code single}, {@code multi} or {@code ideal}
     * @param aatMs the average arrival time, in ms
     * @param records the records received per round
     */
    public record Measurement(String variant, double aatMs, int records) {
        String json() {
            return String.format(Locale.ROOT, "{\"scenario\":\"aggregation\",\"variant\":\"%s\",\"aat_ms\":%.3f,\"records\":%d}",
                    variant, aatMs, records);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean json = false;
        int rounds = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (use --json, --rounds N)");
            }
        }
        List<Measurement> results = run(Source.defaults(), rounds);
        if (json) {
            results.forEach(m -> System.out.println(m.json()));
        } else {
            System.out.println("Aggregation of " + results.get(0).records() + " records from " + Source.defaults().size()
                    + " sources (" + rounds + " rounds each):");
            System.out.printf(Locale.ROOT, "  %-8s %10s %10s%n", "variant", "AAT ms", "vs ideal");
            double ideal = results.stream().filter(m -> m.variant().equals("ideal")).findFirst().orElseThrow().aatMs();
            for (Measurement m : results) {
                System.out.printf(Locale.ROOT, "  %-8s %10.1f %+9.1f%%%n", m.variant(), m.aatMs(), 100 * (m.aatMs() / ideal - 1));
            }
        }
    }

    /** Runs the scenario: {@code rounds} calls of each variant, side by side, plus the ideal. */
    public static List<Measurement> run(List<Source> sources, int rounds) throws Exception {
        TypeRegistry types = TypeRegistry.of(Record.class);
        StaticNameResolver names = new StaticNameResolver();
        List<AutoCloseable> nodes = new ArrayList<>();
        try {
            for (Source s : sources) {
                nodes.add(register(names, RpccServer.builder(s.name()).types(types).resolver(names)
                        .service("records", p -> produce(s)).build().start()));
            }
            // The aggregator reaches the sources through a client of its own.
            RpccClient toSources = RpccClient.builder().name("aggregator-out").types(types).resolver(names).build()
                    .start();
            nodes.add(toSources);
            nodes.add(register(names, RpccServer.builder("aggregator").types(types).resolver(names)
                    .service("gather", p -> gather(toSources, sources, false))
                    .service("gatherStreaming", p -> gather(toSources, sources, true))
                    .build().start()));
            RpccClient client = RpccClient.builder().name("client").types(types).resolver(names).build().start();
            nodes.add(client);

            int expected = sources.stream().mapToInt(Source::count).sum();
            measureSingle(client, expected); // warm up both paths
            measureMulti(client, expected);
            double single = 0;
            double multi = 0;
            for (int r = 0; r < rounds; r++) { // alternate, so both see the same machine
                single += measureSingle(client, expected);
                multi += measureMulti(client, expected);
            }
            return List.of(new Measurement("single", single / rounds, expected),
                    new Measurement("multi", multi / rounds, expected),
                    new Measurement("ideal", idealAatMs(sources), expected));
        } finally {
            for (int i = nodes.size() - 1; i >= 0; i--) {
                nodes.get(i).close();
            }
        }
    }

    /** The AAT with zero network and processing time: the mean production time. */
    public static double idealAatMs(List<Source> sources) {
        return sources.stream().flatMap(s -> s.productionTimesMs().stream()).mapToLong(Long::longValue).average()
                .orElse(0);
    }

    private static RpccServer register(StaticNameResolver names, RpccServer server) {
        names.register(server.name(), server.address());
        return server;
    }

    /** A source: produces its records at their times, replying each as it is ready. */
    private static Object produce(Source s) throws InterruptedException {
        long start = System.nanoTime();
        for (int i = 0; i < s.count(); i++) {
            long due = start + TimeUnit.MILLISECONDS.toNanos(s.firstMs() + i * s.gapMs());
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            ChainContext.current().preturn(new Record(s.name(), i, s.firstMs() + i * s.gapMs()));
        }
        return s.count();
    }

    /**
     * The aggregator: asks every source at once. Streaming, it passes each record on with
     * {@code preturn} as it comes; otherwise it returns them all at the end.
     */
    private static Object gather(RpccClient toSources, List<Source> sources, boolean streaming) throws Exception {
        ChainContext ctx = ChainContext.current();
        List<Record> all = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(sources.size());
        for (Source s : sources) {
            ReplySet<Record> replies = toSources.callWithReplies(s.name(), "records", null, Record.class);
            ctx.startVirtualThread(() -> {
                try {
                    for (Record r : replies) {
                        if (streaming) {
                            ChainContext.current().preturn(r);
                        } else {
                            all.add(r);
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("sources did not answer in 30 s");
        }
        return streaming ? all.size() : new ArrayList<>(all);
    }

    private static double measureSingle(RpccClient client, int expected) {
        long start = System.nanoTime();
        ChainResult r = client.runChain(ChainCall.to("aggregator", "gather").timeout(Duration.ofSeconds(30)));
        long arrived = System.nanoTime();
        List<?> records = (List<?>) r.value();
        check(records.size(), expected);
        return (arrived - start) / 1e6; // every record arrives with the single reply
    }

    private static double measureMulti(RpccClient client, int expected) {
        long start = System.nanoTime();
        ReplySet<Record> replies = client.startChainWithReplies(ChainCall.to("aggregator", "gatherStreaming")
                .timeout(Duration.ofSeconds(30)), Record.class);
        double sum = 0;
        int n = 0;
        while (replies.hasMore()) {
            replies.next();
            sum += (System.nanoTime() - start) / 1e6;
            n++;
        }
        check(n, expected);
        if (replies.isPartial()) {
            throw new IllegalStateException("aggregation failed: " + replies.error());
        }
        return sum / n;
    }

    private static void check(int got, int expected) {
        if (got != expected) {
            throw new IllegalStateException("expected " + expected + " records, got " + got);
        }
    }
}
