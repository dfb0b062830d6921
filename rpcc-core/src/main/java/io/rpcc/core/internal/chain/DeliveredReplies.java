package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.internal.wire.ReplyFrame;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The partial replies a chain's originator has delivered to one sink, by identity (branch, hop,
 * host and the reply's number in its hop), shared by the attempts of the chain that feed that sink
 * (its retries, its diagnosis): a hop replayed when the chain is sent again sends its replies again,
 * and a hop run again (its server restarted, its outcome expired, its service function idempotent)
 * numbers them again from 0; each identity is delivered once. Per stream of replies (one hop at one host on one branch), the numbers seen are kept as a
 * contiguous prefix and the few beyond it, so replies that arrive in order cost a counter.
 */
final class DeliveredReplies {
    private record Stream(BranchId branch, int hop, String host) {
    }

    private static final class Seen {
        /** Every number below this was seen. */
        long below;
        /** Numbers at or above {@link #below} seen, or {@code null}. */
        Set<Long> beyond;

        boolean add(long seq) {
            if (seq < below || (beyond != null && beyond.contains(seq))) {
                return false;
            }
            if (seq > below) {
                if (beyond == null) {
                    beyond = new HashSet<>(4);
                }
                beyond.add(seq);
                return true;
            }
            below++;
            while (beyond != null && beyond.remove(below)) {
                below++;
            }
            return true;
        }
    }

    // guarded by this; replies of one chain arrive on any event loop
    private final Map<Stream, Seen> streams = new HashMap<>(4);

    /** Whether the reply with this identity is seen for the first time (then it is remembered). */
    synchronized boolean firstTime(BranchId branch, int hop, String host, long seq) {
        if (seq == ReplyFrame.UNKEYED) {
            return true;
        }
        return streams.computeIfAbsent(new Stream(branch, hop, host), k -> new Seen()).add(seq);
    }
}
