package io.rpcc.testkit.history;

import java.util.List;
import java.util.Objects;

/**
 * One way in which a history is not serializable (or not atomic), found by
 * {@link SerializabilityChecker}.
 *
 * @param kind what went wrong
 * @param transactions the transactions involved, in the order the explanation names them
 * @param keys the keys involved
 * @param explanation a sentence or two naming the transactions, keys and values, for a test's failure
 *     message
 */
public record Anomaly(Kind kind, List<String> transactions, List<String> keys, String explanation) {
    /** The kinds of anomaly, after Adya's "Weak Consistency" (MIT 1999) where they have a name there. */
    public enum Kind {
        /** G0, write cycle: transactions overwrite each other's writes in a cycle (ww edges only). */
        G0,
        /** G1a, aborted read: a committed transaction read a value written by an aborted one. */
        G1A,
        /** G1b, intermediate read: a committed transaction read a value its writer later overwrote itself. */
        G1B,
        /** G1c, circular information flow: a cycle of ww and wr edges (at least one wr). */
        G1C,
        /**
         * G2, anti-dependency cycle: a cycle with at least one rw edge (a transaction read a version that
         * another one, serialized before it, overwrote); write skew is one. With exactly one rw edge it is
         * also called G-single (read skew).
         */
        G2,
        /** Two committed transactions read the same version of a key and both wrote the key. */
        LOST_UPDATE,
        /**
         * A committed transaction with some writes installed and others not (or none of its logged writes
         * installed), or an aborted transaction with an installed write.
         */
        PARTIAL_COMMIT,
        /** A read, the install log or the final state shows a value that no transaction wrote. */
        UNWRITTEN_VALUE,
        /**
         * A transaction disagrees with itself: a read after its own write did not return that write, two
         * reads of a key with no write between returned different values, or a read returned a value the
         * transaction wrote only later.
         */
        INTERNAL,
        /**
         * The install log or the final state contradicts the transactions: a value installed twice, an
         * intermediate write installed, a final state that is not the last installed version or that lost
         * every committed write.
         */
        VERSION_ORDER
    }

    /** Copies the lists. */
    public Anomaly {
        Objects.requireNonNull(kind, "kind");
        transactions = List.copyOf(transactions);
        keys = List.copyOf(keys);
        Objects.requireNonNull(explanation, "explanation");
    }

    @Override
    public String toString() {
        return kind + ": " + explanation;
    }
}
