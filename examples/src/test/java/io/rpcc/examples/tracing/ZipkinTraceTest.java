package io.rpcc.examples.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import zipkin2.Annotation;
import zipkin2.Span;
import zipkin2.reporter.brave.AsyncZipkinSpanHandler;
import zipkin2.reporter.urlconnection.URLConnectionSender;

/**
 * A chain across three nodes, with a sub-chain, a split and partial replies ({@link TracedOrder}),
 * traced through Micrometer Tracing's Brave bridge into a real Zipkin server (a child process), and
 * found through Zipkin's API: one trace, the node names as service names, the expected span tree,
 * and exactly the spans the nodes reported.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ZipkinTraceTest {
    static ZipkinProcess zipkin;

    @BeforeAll
    static void startZipkin() throws Exception {
        zipkin = ZipkinProcess.start(Path.of("target", "zipkin"));
    }

    @AfterAll
    static void stopZipkin() throws Exception {
        if (zipkin != null) {
            zipkin.close();
        }
    }

    /** A span as both sides know it: Brave's before reporting, Zipkin's API after. */
    record Row(String traceId, String id, @Nullable String parentId, String name, String service, String kind,
               List<String> events, @Nullable String node, boolean error) {
        /** {@code name KIND @service [events]}, as the expected tree shows it. */
        String line() {
            return name + " " + kind + " @" + service + (events.isEmpty() ? "" : " " + events) + (error ? " ERROR" : "");
        }

        static Row of(Span s) {
            return new Row(s.traceId(), s.id(), s.parentId(), s.name(), s.localServiceName(),
                    s.kind() == null ? "INTERNAL" : s.kind().name(),
                    s.annotations().stream().map(Annotation::value).sorted().toList(), s.tags().get("rpcc.node"),
                    s.tags().containsKey("error"));
        }

        /** Zipkin's model lower-cases names and service names. */
        static Row of(MutableSpan s) {
            List<String> events = new ArrayList<>();
            for (int i = 0; i < s.annotationCount(); i++) {
                events.add(s.annotationValueAt(i));
            }
            return new Row(s.traceId(), s.id(), s.parentId(), s.name().toLowerCase(Locale.ROOT),
                    s.localServiceName().toLowerCase(Locale.ROOT), s.kind() == null ? "INTERNAL" : s.kind().name(),
                    events.stream().sorted().toList(), s.tag("rpcc.node"), s.error() != null || s.tag("error") != null);
        }
    }

    /** Every span the nodes finished, as they handed it to Zipkin's reporter. */
    static final class Reported extends SpanHandler {
        final List<Row> rows = new CopyOnWriteArrayList<>();

        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
            rows.add(Row.of(span));
            return true;
        }

        /** The spans, once there are {@code n} and no more come for a moment. */
        List<Row> await(int n) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < end && rows.size() < n) {
                Thread.sleep(10);
            }
            Thread.sleep(300); // any further span would come now
            return List.copyOf(rows);
        }
    }

    static final String EXPECTED_TREE = """
            place order INTERNAL @shop
              rpcc chain gateway order CLIENT @shop [rpcc.result]
                rpcc hop order SERVER @gateway [rpcc.reply]
                  rpcc send inventory reserve CLIENT @gateway
                    rpcc hop reserve SERVER @inventory [rpcc.reply]
                      rpcc send (sub_chain_result) CLIENT @inventory
                        rpcc hop (sub_chain_return) SERVER @gateway
                          rpcc chaining INTERNAL @gateway
                          rpcc send (split_opening) CLIENT @gateway
                            rpcc hop (merge) SERVER @gateway
                              rpcc chaining INTERNAL @gateway
                          rpcc send inventory stock CLIENT @gateway
                            rpcc hop stock SERVER @inventory
                              rpcc service stock INTERNAL @inventory
                          rpcc send pricing quote CLIENT @gateway
                            rpcc hop quote SERVER @pricing [rpcc.reply]
                              rpcc service quote INTERNAL @pricing
                      rpcc service reserve INTERNAL @inventory
                  rpcc service order INTERNAL @gateway
            """;

    @Test
    void aChainWithASubChainASplitAndRepliesIsOneTraceInZipkinWithTheNodesAsServices() throws Exception {
        Reported reported = new Reported();
        int expectedSpans = (int) EXPECTED_TREE.lines().count();
        TracedOrder.Placed placed;
        List<Row> atNodes;
        try (AsyncZipkinSpanHandler reporter = AsyncZipkinSpanHandler.create(
                URLConnectionSender.create(zipkin.spansEndpoint()));
             TracedOrder shop = new TracedOrder(reporter, reported)) {
            placed = shop.place("o-7");
            atNodes = reported.await(expectedSpans);
            reporter.flush();
        }
        assertEquals("o-7: reserved at Lyon-2, 49.98 EUR, 3 left in stock", placed.result());
        assertEquals(List.of("order o-7 accepted", "pricing o-7", "reserved o-7"), placed.replies().stream().sorted().toList());

        List<Row> inZipkin = zipkin.awaitTrace(placed.traceId(), atNodes.size(), Duration.ofSeconds(60))
                .stream().map(Row::of).toList();
        Comparator<Row> byId = Comparator.comparing(Row::id);
        assertEquals(atNodes.stream().sorted(byId).toList(), inZipkin.stream().sorted(byId).toList(),
                "Zipkin's API returns the spans the nodes reported, ids, parents, names and services unchanged");
        assertEquals(Set.of(placed.traceId()), inZipkin.stream().map(Row::traceId).collect(Collectors.toSet()), "one trace");
        assertEquals(Set.of("shop", "gateway", "inventory", "pricing"),
                inZipkin.stream().map(Row::service).collect(Collectors.toSet()), "the nodes are the trace's services");
        assertEquals("[\"gateway\",\"inventory\",\"pricing\",\"shop\"]", zipkin.get("/api/v2/services"),
                "Zipkin's services: the nodes");
        for (Row row : inZipkin) {
            if (row.node() != null) {
                assertEquals(row.node(), row.service(), () -> "the node that recorded " + row.line() + " is its service");
            }
        }
        assertEquals(EXPECTED_TREE, tree(inZipkin));
    }

    /** The spans as an indented tree by parent id, each as {@link Row#line()}, children sorted. */
    static String tree(List<Row> spans) {
        Set<String> ids = spans.stream().map(Row::id).collect(Collectors.toSet());
        Map<String, List<Row>> children = spans.stream().filter(s -> s.parentId() != null)
                .collect(Collectors.groupingBy(Row::parentId));
        StringBuilder out = new StringBuilder();
        render(spans.stream().filter(s -> s.parentId() == null || !ids.contains(s.parentId())).toList(), children, 0, out);
        return out.toString();
    }

    private static void render(List<Row> level, Map<String, List<Row>> children, int depth, StringBuilder out) {
        for (Row s : level.stream().sorted(Comparator.comparing(Row::line)).toList()) {
            out.append("  ".repeat(depth)).append(s.line()).append('\n');
            render(children.getOrDefault(s.id(), List.of()), children, depth + 1, out);
        }
    }
}
