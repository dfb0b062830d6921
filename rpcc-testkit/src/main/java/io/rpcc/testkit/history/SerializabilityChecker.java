package io.rpcc.testkit.history;

/**
 * Decides whether a {@link History} is serializable: whether one serial order of its committed
 * transactions explains every value they read (Adya's PL-3, over the direct serialization graph).
 *
 * <p>The checker builds the graph of the committed transactions (COMMITTED ones, and UNKNOWN ones whose
 * writes something shows: a committed read, the install log, the final state) with three kinds of edge
 * per key: <b>ww</b> (T2 installed the version after T1's), <b>wr</b> (T2 read a value T1 wrote) and
 * <b>rw</b> (T1 read a version that T2 overwrote). The version order comes from the install log where the
 * history has one; elsewhere it is inferred only where any serial order must agree (a transaction that
 * read a version and then wrote the key comes after that version; the final value comes last). A cycle
 * (Tarjan's strongly connected components, then a shortest cycle through each) is classified by its
 * edges: G0 (ww only), G1c (ww and wr), G2 (at least one rw). Besides cycles it reports, without a graph:
 * G1a (a committed read of an aborted write), G1b (a committed read of an intermediate write), lost
 * updates, partial commits, values nobody wrote, transactions that contradict their own reads, and an
 * install log or final state that contradicts the transactions. See {@link Anomaly.Kind}.
 *
 * <pre>{@code
 * History h = new History();
 * h.read("T1", "x", null).write("T1", "x", "T1:x").committed("T1");
 * h.read("T2", "x", null).write("T2", "x", "T2:x").committed("T2");   // read the same version: lost update
 * Verdict v = SerializabilityChecker.check(h);
 * // v.ok() == false; v.has(Anomaly.Kind.LOST_UPDATE); v.toString() names T1, T2 and x
 * }</pre>
 *
 * <p>It is linear in the size of the history apart from the cycle search inside strongly connected
 * components (which a serializable history does not have): 20,000 transactions of 10 operations take a
 * fraction of a second.
 */
public final class SerializabilityChecker {
    private SerializabilityChecker() {}

    /**
     * Checks a history (a snapshot of it: recording may go on).
     *
     * @throws IllegalArgumentException if the history breaks the rule the checker relies on: two
     *     transactions wrote the same value to a key (or a transaction wrote a key's initial value)
     */
    public static Verdict check(History history) {
        return new Analysis(history.transactions(), history.facts()).run();
    }
}
