package io.rpcc.testkit.history;

import java.util.List;

/**
 * What {@link SerializabilityChecker#check(History)} found.
 *
 * @param ok {@code true} when no anomaly was found (the history is explained by a serial order of its
 *     committed transactions, as far as the recorded version order lets the checker tell)
 * @param anomalies what was found, empty when {@code ok}
 * @param transactions how many transactions the history held
 * @param committed how many of them the checker counted as committed (COMMITTED, and UNKNOWN ones
 *     whose writes were seen)
 * @param edges how many dependency edges the serialization graph had
 */
public record Verdict(boolean ok, List<Anomaly> anomalies, int transactions, int committed, long edges) {
    /** How many anomalies {@link #toString()} lists before it only counts the rest. */
    private static final int SHOWN = 20;

    /** Copies the list; {@code ok} must agree with it. */
    public Verdict {
        anomalies = List.copyOf(anomalies);
        if (ok != anomalies.isEmpty()) {
            throw new IllegalArgumentException("ok is " + ok + " but " + anomalies.size() + " anomalies were given");
        }
    }

    /** The anomalies of one kind. */
    public List<Anomaly> of(Anomaly.Kind kind) {
        return anomalies.stream().filter(a -> a.kind() == kind).toList();
    }

    /** Whether an anomaly of this kind was found. */
    public boolean has(Anomaly.Kind kind) {
        return anomalies.stream().anyMatch(a -> a.kind() == kind);
    }

    /**
     * Throws an {@link AssertionError} listing the anomalies unless the history passed: the one-liner
     * for a test.
     */
    public void assertOk() {
        if (!ok) {
            throw new AssertionError(toString());
        }
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        s.append(ok ? "serializable" : "NOT serializable").append(": ").append(transactions).append(" transactions, ")
                .append(committed).append(" committed, ").append(edges).append(" dependency edges");
        for (int i = 0; i < Math.min(SHOWN, anomalies.size()); i++) {
            s.append("\n  ").append(anomalies.get(i));
        }
        if (anomalies.size() > SHOWN) {
            s.append("\n  ... and ").append(anomalies.size() - SHOWN).append(" more");
        }
        return s.toString();
    }
}
