package io.rpcc.testkit.history;

import io.rpcc.testkit.history.Anomaly.Kind;
import io.rpcc.testkit.history.History.Facts;
import io.rpcc.testkit.history.History.Op;
import io.rpcc.testkit.history.History.TxView;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * One run of {@link SerializabilityChecker}: indexes the history, finds the anomalies that need no graph,
 * builds the {@link DependencyGraph} and classifies its cycles. Node 0 is the initial state; the
 * transactions are nodes 1..n in the order they were first recorded.
 */
final class Analysis {
    /** The transaction (node) that wrote a value to a key, and whether it was its last write of the key. */
    private record Writer(int node, boolean last) {}

    /** A read resolved to no version: the read is an anomaly already reported. */
    private static final int NONE = -1;

    private final List<TxView> txs;
    private final Facts facts;
    private final int nodes;
    private final String[] names;
    private final Outcome[] outcome;
    private final boolean[] included;
    private final Map<String, Integer> keyIds = new HashMap<>();
    private final List<String> keyNames = new ArrayList<>();
    /** Per key, who wrote each value. */
    private final List<Map<Object, Writer>> writers = new ArrayList<>();
    /** Per node, its last write of each key it wrote (key id to value). */
    private final List<Map<Integer, Object>> lastWrites;
    /** Per key, the initial value, if the history gave one. */
    private final Map<Integer, Object> initial = new HashMap<>();
    /** Per (key, version), the nodes that read that version from outside (before writing the key). */
    private final Map<Long, List<Integer>> readers = new HashMap<>();
    /** Per key, per version, the nodes that read that version and then wrote the key. */
    private final Map<Integer, Map<Integer, List<Integer>>> overwriters = new LinkedHashMap<>();
    /** Per key, the included nodes that wrote it (its versions but the initial one). */
    private final Map<Integer, List<Integer>> versions = new HashMap<>();
    private final List<Anomaly> anomalies = new ArrayList<>();
    private final DependencyGraph graph;

    Analysis(List<TxView> txs, Facts facts) {
        this.txs = txs;
        this.facts = facts;
        this.nodes = txs.size() + 1;
        this.names = new String[nodes];
        this.outcome = new Outcome[nodes];
        this.included = new boolean[nodes];
        this.lastWrites = new ArrayList<>(nodes);
        this.graph = new DependencyGraph(nodes);
        names[0] = "the initial state";
        outcome[0] = Outcome.COMMITTED;
        included[0] = true;
        lastWrites.add(Map.of());
    }

    Verdict run() {
        indexWrites();
        include();
        for (int v = 1; v < nodes; v++) {
            if (included[v]) {
                readsOf(v);
            }
        }
        Set<Integer> logged = new LinkedHashSet<>();
        facts.installed().keySet().stream().sorted().forEach(k -> logged.add(key(k)));
        if (facts.installLogComplete()) {
            logged.addAll(versions.keySet());
        }
        Map<Long, Integer> installed = new HashMap<>();
        for (int k : logged) {
            orderFromLog(k, installed);
        }
        for (int k : versions.keySet().stream().sorted().toList()) {
            if (!logged.contains(k)) {
                orderInferred(k);
            }
        }
        for (String k : facts.finalState().keySet().stream().sorted().toList()) {
            int id = key(k);
            if (!logged.contains(id) && !versions.containsKey(id)) {
                orderInferred(id); // a key no committed transaction wrote: its final state must be the initial one
            }
        }
        partialCommits(logged, installed);
        lostUpdates();
        graph.freeze();
        cycles();
        anomalies.sort(Comparator.comparing(Anomaly::kind));
        int committed = 0;
        for (int v = 1; v < nodes; v++) {
            committed += included[v] ? 1 : 0;
        }
        return new Verdict(anomalies.isEmpty(), anomalies, txs.size(), committed, graph.edges());
    }

    private int key(String k) {
        Integer id = keyIds.get(k);
        if (id == null) {
            id = keyNames.size();
            keyIds.put(k, id);
            keyNames.add(k);
            writers.add(new HashMap<>());
            Object init = facts.initial().get(k);
            if (init != null) {
                initial.put(id, init);
            }
        }
        return id;
    }

    private static long pair(int k, int version) {
        return (long) k << 32 | version;
    }

    // --- indexing

    private void indexWrites() {
        for (int i = 0; i < txs.size(); i++) {
            int v = i + 1;
            TxView t = txs.get(i);
            names[v] = t.id();
            outcome[v] = t.outcome();
            Map<Integer, Object> last = new HashMap<>();
            for (Op op : t.ops()) {
                int k = key(op.key());
                if (op.write()) {
                    last.put(k, op.value());
                }
            }
            lastWrites.add(last);
            for (Op op : t.ops()) {
                if (!op.write()) {
                    continue;
                }
                int k = key(op.key());
                Object value = Objects.requireNonNull(op.value());
                Writer before = writers.get(k).get(value);
                if (before != null && before.node() != v) {
                    throw new IllegalArgumentException("transactions " + names[before.node()] + " and " + t.id()
                            + " both wrote " + show(value) + " to key '" + op.key() + "': the checker needs written "
                            + "values unique per transaction and key (write \"" + t.id() + ":" + op.key() + "\", say)");
                }
                if (value.equals(initial.get(k))) {
                    throw new IllegalArgumentException("transaction " + t.id() + " wrote " + show(value) + " to key '"
                            + op.key() + "', its initial value: written values must differ from it");
                }
                writers.get(k).put(value, new Writer(v, value.equals(last.get(k))));
            }
        }
    }

    /** Counts in the committed transactions and the UNKNOWN ones whose last writes something shows. */
    private void include() {
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int v = 1; v < nodes; v++) {
            if (outcome[v] == Outcome.COMMITTED) {
                included[v] = true;
                queue.add(v);
            }
        }
        facts.installed().forEach((k, log) -> log.forEach(value -> seen(key(k), value, queue)));
        facts.finalState().forEach((k, value) -> value.ifPresent(x -> seen(key(k), x, queue)));
        while (!queue.isEmpty()) {
            int v = queue.poll();
            for (Op op : txs.get(v - 1).ops()) {
                if (!op.write() && op.value() != null) {
                    seen(key(op.key()), op.value(), queue);
                }
            }
        }
    }

    private void seen(int k, Object value, ArrayDeque<Integer> queue) {
        Writer w = writers.get(k).get(value);
        if (w != null && w.last() && !included[w.node()] && outcome[w.node()] == Outcome.UNKNOWN) {
            included[w.node()] = true;
            queue.add(w.node());
        }
    }

    // --- reads: internal consistency, G1a, G1b, values nobody wrote, wr edges

    private void readsOf(int v) {
        Map<Integer, Optional<Object>> ownWrite = new HashMap<>();
        Map<Integer, Optional<Object>> firstRead = new HashMap<>();
        for (Op op : txs.get(v - 1).ops()) {
            int k = key(op.key());
            if (op.write()) {
                ownWrite.put(k, Optional.of(Objects.requireNonNull(op.value())));
                continue;
            }
            Object value = op.value();
            Optional<Object> own = ownWrite.get(k);
            if (own != null) {
                if (!own.equals(Optional.ofNullable(value))) {
                    report(Kind.INTERNAL, List.of(names[v]), List.of(op.key()), names[v] + " wrote " + op.key() + "="
                            + show(own.orElse(null)) + ", then read " + op.key() + "=" + show(value)
                            + ": a transaction reads its own last write");
                }
                continue;
            }
            Optional<Object> first = firstRead.get(k);
            if (first != null) {
                if (first.equals(Optional.ofNullable(value))) {
                    continue;
                }
                report(Kind.INTERNAL, List.of(names[v]), List.of(op.key()), names[v] + " read " + op.key() + "="
                        + show(first.orElse(null)) + ", then " + op.key() + "=" + show(value)
                        + " with no write of its own between (non-repeatable read)");
            } else {
                firstRead.put(k, Optional.ofNullable(value));
            }
            int version = resolveRead(v, k, value);
            if (version == NONE) {
                continue;
            }
            graph.add(version, v, DependencyGraph.WR, k, 0);
            readers.computeIfAbsent(pair(k, version), x -> new ArrayList<>()).add(v);
            if (lastWrites.get(v).containsKey(k)) {
                overwriters.computeIfAbsent(k, x -> new LinkedHashMap<>()).computeIfAbsent(version, x -> new ArrayList<>())
                        .add(v);
            }
        }
        for (int k : lastWrites.get(v).keySet()) {
            versions.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
        }
    }

    /** The version (its writer's node, 0 for the initial one) a read observed, or NONE after reporting why not. */
    private int resolveRead(int v, int k, @Nullable Object value) {
        String key = keyNames.get(k);
        Object init = initial.get(k);
        if (value == null) {
            if (init == null) {
                return 0;
            }
            report(Kind.UNWRITTEN_VALUE, List.of(names[v]), List.of(key), names[v] + " read no value of " + key
                    + ", but " + key + " started as " + show(init) + " and no transaction removes values");
            return NONE;
        }
        if (value.equals(init)) {
            return 0;
        }
        Writer w = writers.get(k).get(value);
        if (w == null) {
            report(Kind.UNWRITTEN_VALUE, List.of(names[v]), List.of(key), names[v] + " read " + key + "=" + show(value)
                    + ", a value no transaction wrote");
            return NONE;
        }
        String writer = names[w.node()];
        if (w.node() == v) {
            report(Kind.INTERNAL, List.of(names[v]), List.of(key), names[v] + " read " + key + "=" + show(value)
                    + " before writing that value itself");
            return NONE;
        }
        if (outcome[w.node()] == Outcome.ABORTED) {
            report(Kind.G1A, List.of(names[v], writer), List.of(key), "G1a (aborted read): " + names[v] + " read "
                    + key + "=" + show(value) + ", written by " + writer + ", which aborted");
            return NONE;
        }
        if (!w.last()) {
            report(Kind.G1B, List.of(names[v], writer), List.of(key), "G1b (intermediate read): " + names[v]
                    + " read " + key + "=" + show(value) + ", written by " + writer + ", which later wrote " + key
                    + "=" + show(lastWrites.get(w.node()).get(k)) + " instead");
            return NONE;
        }
        return w.node();
    }

    // --- version order: ww and rw edges

    /** A key whose install log is its version order. */
    private void orderFromLog(int k, Map<Long, Integer> installed) {
        String key = keyNames.get(k);
        List<Integer> order = new ArrayList<>();
        order.add(0);
        for (Object value : facts.installed().getOrDefault(key, List.of())) {
            Writer w = writers.get(k).get(value);
            if (w == null) {
                report(Kind.UNWRITTEN_VALUE, List.of(), List.of(key), key + "'s install log holds " + show(value)
                        + ", a value no transaction wrote");
            } else if (outcome[w.node()] == Outcome.ABORTED) {
                report(Kind.PARTIAL_COMMIT, List.of(names[w.node()]), List.of(key), names[w.node()]
                        + " aborted, yet its write " + key + "=" + show(value) + " was installed");
            } else if (!w.last()) {
                report(Kind.VERSION_ORDER, List.of(names[w.node()]), List.of(key), key + "'s install log holds "
                        + show(value) + ", an intermediate write of " + names[w.node()] + " (its last write of "
                        + key + " was " + show(lastWrites.get(w.node()).get(k)) + ")");
            } else if (installed.putIfAbsent(pair(k, w.node()), order.size()) != null) {
                report(Kind.VERSION_ORDER, List.of(names[w.node()]), List.of(key), key + "'s install log holds "
                        + show(value) + " (" + names[w.node()] + "'s write) twice");
            } else {
                order.add(w.node());
            }
        }
        for (int i = 0; i + 1 < order.size(); i++) {
            precedes(k, order.get(i), order.get(i + 1));
        }
        Optional<Object> last = facts.finalState().get(key);
        if (last != null) {
            int lastVersion = order.get(order.size() - 1);
            Object expected = lastVersion == 0 ? initial.get(k) : lastWrites.get(lastVersion).get(k);
            int f = resolveFinal(k, last.orElse(null));
            if (f != NONE && !Objects.equals(expected, last.orElse(null))) {
                report(Kind.VERSION_ORDER, lastVersion == 0 ? List.of() : List.of(names[lastVersion]), List.of(key),
                        "the final state of " + key + " is " + show(last.orElse(null)) + ", but the last value its log "
                        + "installed is " + show(expected) + (lastVersion == 0 ? "" : " (" + names[lastVersion] + "'s)"));
            }
        }
    }

    /** A key with no install log: the version order any serial execution must have. */
    private void orderInferred(int k) {
        String key = keyNames.get(k);
        List<Integer> written = versions.getOrDefault(k, List.of());
        Optional<Object> last = facts.finalState().get(key);
        if (last != null) {
            int f = resolveFinal(k, last.orElse(null));
            if (f == 0 && !written.isEmpty()) {
                report(Kind.VERSION_ORDER, written.stream().map(v -> names[v]).toList(), List.of(key),
                        "the final state of " + key + " is its initial value " + show(last.orElse(null))
                        + ", yet committed transactions wrote it: " + listOf(written, k));
            } else if (f > 0) {
                precedes(k, 0, f);
                for (int v : written) {
                    if (v != f) {
                        precedes(k, v, f);
                    }
                }
            }
        }
        for (int v : written) {
            precedes(k, 0, v);
        }
        overwriters.getOrDefault(k, Map.of()).forEach((version, list) -> {
            for (int v : list) {
                precedes(k, version, v);
            }
        });
    }

    /** The final state of a key resolved to a version, or NONE after reporting why it cannot be one. */
    private int resolveFinal(int k, @Nullable Object value) {
        String key = keyNames.get(k);
        Object init = initial.get(k);
        if (value == null || value.equals(init)) {
            if (value == null && init != null) {
                report(Kind.VERSION_ORDER, List.of(), List.of(key), "the final state of " + key + " has no value, "
                        + "but " + key + " started as " + show(init) + " and no transaction removes values");
                return NONE;
            }
            return 0;
        }
        Writer w = writers.get(k).get(value);
        if (w == null) {
            report(Kind.UNWRITTEN_VALUE, List.of(), List.of(key), "the final state of " + key + " is "
                    + show(value) + ", a value no transaction wrote");
            return NONE;
        }
        if (outcome[w.node()] == Outcome.ABORTED) {
            report(Kind.PARTIAL_COMMIT, List.of(names[w.node()]), List.of(key), names[w.node()] + " aborted, yet the "
                    + "final state of " + key + " is its write " + show(value));
            return NONE;
        }
        if (!w.last()) {
            report(Kind.VERSION_ORDER, List.of(names[w.node()]), List.of(key), "the final state of " + key + " is "
                    + show(value) + ", an intermediate write of " + names[w.node()]);
            return NONE;
        }
        return w.node();
    }

    /**
     * Version {@code a} of key {@code k} comes before version {@code b}: ww from a's writer to b's, rw from
     * each reader of {@code a} to b's writer.
     */
    private void precedes(int k, int a, int b) {
        if (a != 0) {
            graph.add(a, b, DependencyGraph.WW, k, 0);
        }
        for (int r : readers.getOrDefault(pair(k, a), List.of())) {
            graph.add(r, b, DependencyGraph.RW, k, a);
        }
    }

    // --- anomalies without a graph

    private void partialCommits(Set<Integer> logged, Map<Long, Integer> installed) {
        if (logged.isEmpty()) {
            return;
        }
        for (int v = 1; v < nodes; v++) {
            if (!included[v]) {
                continue;
            }
            List<Integer> in = new ArrayList<>();
            List<Integer> out = new ArrayList<>();
            for (int k : lastWrites.get(v).keySet().stream().sorted().toList()) {
                if (logged.contains(k)) {
                    (installed.containsKey(pair(k, v)) ? in : out).add(k);
                }
            }
            if (out.isEmpty()) {
                continue;
            }
            List<String> keys = new ArrayList<>();
            out.forEach(k -> keys.add(keyNames.get(k)));
            in.forEach(k -> keys.add(keyNames.get(k)));
            String how = outcome[v] == Outcome.COMMITTED ? "committed" : "did not learn its outcome but its writes were seen";
            report(Kind.PARTIAL_COMMIT, List.of(names[v]), keys, names[v] + " " + how + ", yet "
                    + writes(v, out) + (out.size() == 1 ? " was" : " were") + " never installed"
                    + (in.isEmpty() ? "" : " while " + writes(v, in) + (in.size() == 1 ? " was" : " were")));
        }
    }

    private void lostUpdates() {
        overwriters.forEach((k, byVersion) -> byVersion.forEach((version, list) -> {
            if (list.size() < 2) {
                return;
            }
            String key = keyNames.get(k);
            List<String> txNames = list.stream().map(v -> names[v]).toList();
            report(Kind.LOST_UPDATE, txNames, List.of(key), "lost update: " + String.join(", ", txNames)
                    + (list.size() == 2 ? " both" : " all") + " read " + key + "=" + show(valueOf(k, version))
                    + (version == 0 ? " (the initial version)" : " (" + names[version] + "'s)")
                    + " and then wrote " + key + " (" + listOf(list, k) + "): only one may have");
        }));
    }

    // --- cycles

    private void cycles() {
        int[] top = new int[nodes];
        for (int v = 0; v < nodes; v++) {
            top[v] = included[v] ? 0 : -1;
        }
        int[] all = IntStream.range(0, nodes).filter(v -> included[v]).toArray();
        int[] sub = new int[nodes];
        Arrays.fill(sub, -1);
        int nextId = 0;
        boolean[] inG0 = new boolean[nodes];
        List<int[]> components = graph.components(all, top, 0, DependencyGraph.ALL);
        for (int c = 0; c < components.size(); c++) {
            int[] scc = components.get(c);
            int id = c + 1;
            for (int v : scc) {
                top[v] = id;
            }
            boolean reported = false;
            for (int[] g0 : graph.components(scc, top, id, 1 << DependencyGraph.WW)) {
                nextId++;
                for (int v : g0) {
                    sub[v] = nextId;
                }
                reportCycle(Kind.G0, graph.shortestCycle(g0, sub, nextId, 1 << DependencyGraph.WW, DependencyGraph.WW));
                for (int v : g0) {
                    inG0[v] = true;
                }
                reported = true;
            }
            int wwWr = 1 << DependencyGraph.WW | 1 << DependencyGraph.WR;
            for (int[] g1 : graph.components(scc, top, id, wwWr)) {
                if (Arrays.stream(g1).anyMatch(v -> inG0[v])) {
                    continue;
                }
                nextId++;
                for (int v : g1) {
                    sub[v] = nextId;
                }
                reportCycle(Kind.G1C, graph.shortestCycle(g1, sub, nextId, wwWr, DependencyGraph.WR));
                reported = true;
            }
            if (!reported) {
                reportCycle(Kind.G2, graph.shortestCycle(scc, top, id, DependencyGraph.ALL, DependencyGraph.RW));
            }
        }
    }

    private void reportCycle(Kind kind, int[] cycle) {
        if (cycle.length == 0) {
            throw new IllegalStateException("a strongly connected component without a cycle: a bug of the checker");
        }
        List<String> txNames = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        StringBuilder path = new StringBuilder();
        StringBuilder why = new StringBuilder();
        int antiDependencies = 0;
        for (int e : cycle) {
            int f = graph.from(e);
            int t = graph.to(e);
            int k = graph.key(e);
            String key = keyNames.get(k);
            txNames.add(names[f]);
            keys.add(key);
            String type = switch (graph.type(e)) {
                case DependencyGraph.WW -> "ww";
                case DependencyGraph.WR -> "wr";
                default -> "rw";
            };
            path.append(names[f]).append(" -").append(type).append('(').append(key).append(")-> ");
            why.append("; ");
            switch (graph.type(e)) {
                case DependencyGraph.WW -> why.append(names[t]).append("'s ").append(key).append('=')
                        .append(show(valueOf(k, t))).append(" comes after ").append(names[f]).append("'s ")
                        .append(show(valueOf(k, f)));
                case DependencyGraph.WR -> why.append(names[t]).append(" read ").append(key).append('=')
                        .append(show(valueOf(k, f))).append(" written by ").append(names[f]);
                default -> {
                    antiDependencies++;
                    int s = graph.seen(e);
                    why.append(names[f]).append(" read ").append(key).append('=').append(show(valueOf(k, s)))
                            .append(s == 0 ? ", the initial version" : "").append(", and ").append(names[t]).append("'s ")
                            .append(key).append('=').append(show(valueOf(k, t))).append(" comes after it");
                }
            }
        }
        path.append(names[graph.from(cycle[0])]);
        String title = switch (kind) {
            case G0 -> "G0 (write cycle): ";
            case G1C -> "G1c (circular information flow): ";
            default -> "G2 (anti-dependency cycle" + (antiDependencies == 1 ? ", G-single" : "") + "): ";
        };
        report(kind, txNames, List.copyOf(keys), title + path + why);
    }

    // --- text

    private @Nullable Object valueOf(int k, int version) {
        return version == 0 ? initial.get(k) : lastWrites.get(version).get(k);
    }

    private String writes(int v, List<Integer> keys) {
        List<String> parts = new ArrayList<>();
        for (int k : keys) {
            parts.add(keyNames.get(k) + "=" + show(lastWrites.get(v).get(k)));
        }
        return String.join(", ", parts);
    }

    private String listOf(List<Integer> writersOfKey, int k) {
        List<String> parts = new ArrayList<>();
        for (int v : writersOfKey) {
            parts.add(names[v] + " wrote " + show(lastWrites.get(v).get(k)));
        }
        return String.join(", ", parts);
    }

    private static String show(@Nullable Object value) {
        return value == null ? "(no value)" : value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    }

    private void report(Kind kind, List<String> txNames, List<String> keys, String explanation) {
        anomalies.add(new Anomaly(kind, txNames, keys, explanation));
    }
}
