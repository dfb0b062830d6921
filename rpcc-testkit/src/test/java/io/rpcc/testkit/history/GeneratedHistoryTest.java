package io.rpcc.testkit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.testkit.history.Anomaly.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Generated histories: 20,000 transactions of about 10 operations run one after another (so serializable)
 * pass; the same with one corruption injected at a random place fails, naming the anomaly the
 * corruption makes.
 */
class GeneratedHistoryTest {
    private static final int TRANSACTIONS = 20_000;
    private static final int KEYS = 200;
    private static final int OPS = 10;

    /** One operation of the model; {@code value} is null for a read of no value. */
    private static final class Op {
        final boolean write;
        final String key;
        @Nullable Object value;

        Op(boolean write, String key, @Nullable Object value) {
            this.write = write;
            this.key = key;
            this.value = value;
        }
    }

    private static final class Tx {
        final String id;
        final List<Op> ops = new ArrayList<>();
        Outcome outcome;
        /** Each key's last write, as installed. */
        final Map<String, Object> last = new LinkedHashMap<>();

        Tx(String id, Outcome outcome) {
            this.id = id;
            this.outcome = outcome;
        }
    }

    /** A serial execution, kept as plain data so that a test can corrupt it before recording it. */
    private static final class Model {
        final List<Tx> txs = new ArrayList<>();
        final Map<String, List<Object>> log = new HashMap<>();
        final Map<String, @Nullable Object> finalState = new HashMap<>();
        /** Who wrote each value (its key is in the value). */
        final Map<Object, Tx> writer = new HashMap<>();

        Model(long seed) {
            Random random = new Random(seed);
            Map<String, Object> current = new HashMap<>();
            for (int i = 0; i < TRANSACTIONS; i++) {
                double r = random.nextDouble();
                Outcome outcome = r < 0.03 ? Outcome.ABORTED : r < 0.05 ? Outcome.UNKNOWN : Outcome.COMMITTED;
                Tx t = new Tx("T" + i, outcome);
                int ops = OPS - 2 + random.nextInt(5);
                for (int j = 0; j < ops; j++) {
                    String key = "k" + random.nextInt(KEYS);
                    if (random.nextBoolean()) {
                        t.ops.add(new Op(false, key, t.last.containsKey(key) ? t.last.get(key) : current.get(key)));
                    } else {
                        String value = t.id + ":" + key + ":" + j;
                        t.ops.add(new Op(true, key, value));
                        t.last.remove(key); // keep the order of the last writes
                        t.last.put(key, value);
                        writer.put(value, t);
                    }
                }
                if (outcome == Outcome.COMMITTED || outcome == Outcome.UNKNOWN && random.nextBoolean()) {
                    t.last.forEach((key, value) -> {
                        current.put(key, value);
                        log.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
                    });
                }
                txs.add(t);
            }
            for (int k = 0; k < KEYS; k++) {
                finalState.put("k" + k, current.get("k" + k));
            }
        }

        History record(boolean withLog) {
            History h = new History();
            for (Tx t : txs) {
                for (Op op : t.ops) {
                    if (op.write) {
                        h.write(t.id, op.key, op.value);
                    } else {
                        h.read(t.id, op.key, op.value);
                    }
                }
                h.end(t.id, t.outcome);
            }
            if (withLog) {
                log.forEach((k, values) -> values.forEach(v -> h.installed(k, v)));
            }
            finalState.forEach(h::finalState);
            return h;
        }

        /** The committed transactions' reads before their first write of the key, as (tx, op) pairs. */
        List<Object[]> externalReads() {
            List<Object[]> out = new ArrayList<>();
            for (Tx t : txs) {
                if (t.outcome != Outcome.COMMITTED) {
                    continue;
                }
                Map<String, Boolean> written = new HashMap<>();
                for (Op op : t.ops) {
                    if (op.write) {
                        written.put(op.key, true);
                    } else if (!written.containsKey(op.key)) {
                        out.add(new Object[] {t, op});
                    }
                }
            }
            return out;
        }
    }

    /** The corruptions, each with the anomaly it must cause. */
    enum Corruption {
        /** A read-modify-write reads the version before the one it read: an rw edge closes a cycle. */
        STALE_READ_MODIFY_WRITE(Kind.G2),
        /** As above where the skipped version's writer read the same version: a lost update. */
        LOST_UPDATE(Kind.LOST_UPDATE),
        /** A committed transaction whose writes were installed is reported aborted. */
        ABORTED_BUT_INSTALLED(Kind.PARTIAL_COMMIT),
        /** A read returns a value nobody wrote. */
        GARBAGE_READ(Kind.UNWRITTEN_VALUE),
        /** A read returns a value its writer overwrote itself. */
        INTERMEDIATE_READ(Kind.G1B),
        /**
         * Two adjacent versions swap places in a log, the later having read the earlier: a cycle without rw
         * edges, G1c (wr one way, ww back), or G0 where ww edges on other keys lead back too.
         */
        SWAPPED_VERSIONS(Kind.G1C, Kind.G0),
        /** A multi-key transaction's write is missing from one log. */
        DROPPED_INSTALL(Kind.PARTIAL_COMMIT),
        /** A value is installed twice. */
        DUPLICATE_INSTALL(Kind.VERSION_ORDER),
        /** A committed transaction reads a value of an aborted one. */
        ABORTED_READ(Kind.G1A);

        /** The anomalies the corruption may be reported as (at least one must be). */
        final Set<Kind> kinds;

        Corruption(Kind kind, Kind... or) {
            this.kinds = EnumSet.of(kind, or);
        }
    }

    @Test
    void aSerialHistoryOf20000TransactionsPasses() {
        Model m = new Model(42);
        for (boolean withLog : new boolean[] {true, false}) {
            History h = m.record(withLog);
            Verdict v = timed(h, "serial, " + (withLog ? "with" : "without") + " an install log");
            v.assertOk();
            timed(h, "again (warm)").assertOk();
            assertEquals(TRANSACTIONS, v.transactions());
            assertTrue(v.committed() > TRANSACTIONS * 0.95, v.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Corruption.class)
    void aSingleCorruptionIsFound(Corruption corruption) {
        long seed = System.nanoTime();
        Model m = new Model(seed);
        Random random = new Random(seed);
        String what = corrupt(m, corruption, random);
        Verdict v = timed(m.record(true), corruption + " (seed " + seed + "): " + what);
        assertFalse(v.ok(), corruption + " (seed " + seed + ") was not found: " + what);
        assertTrue(corruption.kinds.stream().anyMatch(v::has), corruption + " (seed " + seed + "): " + what
                + " should be one of " + corruption.kinds + ", the checker says " + v);
    }

    private static Verdict timed(History h, String label) {
        long start = System.nanoTime();
        Verdict v = SerializabilityChecker.check(h);
        double millis = (System.nanoTime() - start) / 1e6;
        System.out.printf("%s: checked %,d transactions (%,d ops) in %.0f ms%n  %s%n", label, h.size(),
                h.transactions().stream().mapToInt(t -> t.ops().size()).sum(), millis, v.toString().replace("\n", "\n  "));
        return v;
    }

    /** Applies one corruption at a random place; returns what it did. */
    private static String corrupt(Model m, Corruption c, Random random) {
        List<Object[]> reads = m.externalReads();
        Collections.shuffle(reads, random);
        switch (c) {
            case STALE_READ_MODIFY_WRITE, LOST_UPDATE -> {
                for (Object[] r : reads) {
                    Tx t = (Tx) r[0];
                    Op op = (Op) r[1];
                    if (op.value == null || !t.last.containsKey(op.key)) {
                        continue; // not a read-modify-write of a written version
                    }
                    List<Object> log = m.log.get(op.key);
                    int at = log.indexOf(op.value);
                    Object before = at == 0 ? null : log.get(at - 1);
                    Tx skipped = m.writer.get(op.value);
                    boolean skippedReadBefore = skipped.ops.stream().anyMatch(o -> !o.write && o.key.equals(op.key)
                            && Objects.equals(o.value, before)) && skipped.outcome == Outcome.COMMITTED;
                    if (skippedReadBefore != (c == Corruption.LOST_UPDATE)) {
                        continue;
                    }
                    for (Op o : t.ops) { // every read of the key before the transaction writes it
                        if (o.key.equals(op.key)) {
                            if (o.write) {
                                break;
                            }
                            o.value = before;
                        }
                    }
                    return t.id + " read " + op.key + "=" + before + " instead of " + skipped.last.get(op.key) + " ("
                            + skipped.id + "'s)";
                }
            }
            case ABORTED_BUT_INSTALLED -> {
                for (Tx t : shuffled(m.txs, random)) {
                    if (t.outcome == Outcome.COMMITTED && !t.last.isEmpty()) {
                        t.outcome = Outcome.ABORTED;
                        return t.id + " reported aborted";
                    }
                }
            }
            case GARBAGE_READ -> {
                Object[] r = reads.get(0);
                ((Op) r[1]).value = "garbage";
                return ((Tx) r[0]).id + " read " + ((Op) r[1]).key + "=garbage";
            }
            case INTERMEDIATE_READ -> {
                for (Object[] r : reads) {
                    Op op = (Op) r[1];
                    Tx w = op.value == null ? null : m.writer.get(op.value);
                    if (w == null) {
                        continue;
                    }
                    for (Op o : w.ops) {
                        if (o.write && o.key.equals(op.key) && !o.value.equals(op.value)) {
                            Object was = op.value;
                            op.value = o.value;
                            return ((Tx) r[0]).id + " read " + op.key + "=" + o.value + " instead of " + was;
                        }
                    }
                }
            }
            case SWAPPED_VERSIONS -> {
                for (Object[] r : reads) {
                    Tx t = (Tx) r[0];
                    Op op = (Op) r[1];
                    if (op.value == null || !t.last.containsKey(op.key)) {
                        continue;
                    }
                    List<Object> log = m.log.get(op.key);
                    int at = log.indexOf(op.value);
                    if (at + 2 < log.size() && log.get(at + 1).equals(t.last.get(op.key))) {
                        log.set(at + 1, op.value);
                        log.set(at, t.last.get(op.key));
                        return op.key + "'s log swapped " + op.value + " and " + t.last.get(op.key);
                    }
                }
            }
            case DROPPED_INSTALL -> {
                for (Tx t : shuffled(m.txs, random)) {
                    if (t.outcome == Outcome.COMMITTED && t.last.size() >= 2) {
                        String key = t.last.keySet().iterator().next();
                        m.log.get(key).remove(t.last.get(key));
                        return key + "'s log lost " + t.last.get(key);
                    }
                }
            }
            case DUPLICATE_INSTALL -> {
                List<Object> log = m.log.get("k" + random.nextInt(KEYS));
                int at = random.nextInt(log.size());
                log.add(at + 1, log.get(at));
                return "installed " + log.get(at) + " twice";
            }
            case ABORTED_READ -> {
                for (Tx a : shuffled(m.txs, random)) {
                    if (a.outcome == Outcome.ABORTED && !a.last.isEmpty()) {
                        Map.Entry<String, Object> w = a.last.entrySet().iterator().next();
                        for (Object[] r : reads) {
                            Op op = (Op) r[1];
                            if (op.key.equals(w.getKey())) {
                                op.value = w.getValue();
                                return ((Tx) r[0]).id + " read " + op.key + "=" + w.getValue() + " of aborted " + a.id;
                            }
                        }
                    }
                }
            }
        }
        throw new AssertionError("no place for " + c + " in this history");
    }

    private static List<Tx> shuffled(List<Tx> txs, Random random) {
        List<Tx> copy = new ArrayList<>(txs);
        Collections.shuffle(copy, random);
        return copy;
    }
}
