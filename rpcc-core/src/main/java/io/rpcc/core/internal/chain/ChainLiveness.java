package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the originator knows of whether one of its chains is alive (paper 3.9, 3.10): the branches
 * it expects heartbeats from, and when it last heard from each. It starts expecting the branch the
 * chain started on. A heartbeat from a branch below an expected one says that branch split: the
 * originator then expects every branch of the split (it learns how many from the heartbeat's sibling
 * counts) instead; a heartbeat from a branch above expected ones says they merged. Hop numbers tell
 * a stale heartbeat (sent before a merge or split that the originator has already heard of, overtaken
 * on another path) from a new split or merge: a split's branches have higher hop numbers than the
 * hop that split, and a merge has the highest hop number of its branches. Other frames of the chain
 * (partial replies, QUIET) carry no branch: they count as a sign of life while the chain, as far as
 * the originator knows, has not split. The chain is broken when an expected branch has been silent
 * for longer than the broken-after time. Thread-safe: heartbeats arrive on event loops, the check
 * runs on the node's sweep.
 */
public final class ChainLiveness {
    /**
     * A branch silent for too long.
     *
     * @param branch the branch
     * @param silentNanos how long it has been silent
     * @param hop the hop it was last heard at (or, never heard itself, the hop of the branch it split from)
     * @param host the node it was last heard from, or where the chain was sent if never heard
     * @param heard whether a heartbeat ever came from this branch itself
     */
    public record Silence(BranchId branch, long silentNanos, int hop, String host, boolean heard) {
    }

    private static final class Expected {
        long heardNanos;
        int hop;
        String host;
        boolean heard;

        Expected(long heardNanos, int hop, String host, boolean heard) {
            this.heardNanos = heardNanos;
            this.hop = hop;
            this.host = host;
            this.heard = heard;
        }
    }

    private final long brokenAfterNanos;
    private final Map<BranchId, Expected> expected = new HashMap<>(2); // guarded by this
    private volatile long lastFrameNanos; // of the frames without a branch: no lock on the reply path

    /**
     * A chain started at {@code nowNanos} on {@code branch}, whose first hop {@code hop} went to
     * {@code server}, broken when a branch is silent for longer than {@code brokenAfterNanos}.
     */
    public ChainLiveness(BranchId branch, int hop, String server, long brokenAfterNanos, long nowNanos) {
        this.brokenAfterNanos = brokenAfterNanos;
        this.lastFrameNanos = nowNanos;
        expected.put(branch, new Expected(nowNanos, hop - 1, server, false));
    }

    /** The broken-after time. */
    public long brokenAfterNanos() {
        return brokenAfterNanos;
    }

    /** A frame of the chain without a branch arrived at {@code nowNanos}: a sign of life if the chain has not split. */
    public void heard(long nowNanos) {
        lastFrameNanos = nowNanos;
    }

    /** A heartbeat of the chain arrived at {@code nowNanos}. */
    public synchronized void heartbeat(HeartbeatFrame f, long nowNanos) {
        BranchId b = f.branch();
        Expected e = expected.get(b);
        if (e != null) {
            e.heardNanos = nowNanos;
            e.heard = true;
            if (f.hop() >= e.hop) {
                e.hop = f.hop();
                e.host = f.host();
            }
            return;
        }
        BranchId ancestor = null;
        for (BranchId a : expected.keySet()) {
            if (isAbove(a, b)) {
                ancestor = a;
                break; // expected branches never nest: at most one is above b
            }
        }
        if (ancestor != null) {
            Expected split = expected.get(ancestor);
            if (f.hop() <= split.hop) {
                return; // sent before the branch it split from merged again: stale
            }
            expected.remove(ancestor);
            List<Integer> indexes = b.indexes();
            int[] prefix = new int[b.depth()];
            for (int i = 0; i < ancestor.depth(); i++) {
                prefix[i] = indexes.get(i);
            }
            for (int level = ancestor.depth(); level < b.depth(); level++) {
                int n = f.siblings().get(level);
                for (int j = 1; j <= n; j++) {
                    if (j != indexes.get(level)) {
                        int[] sibling = Arrays.copyOf(prefix, level + 1);
                        sibling[level] = j;
                        expected.putIfAbsent(BranchId.of(sibling), new Expected(nowNanos, split.hop, split.host, false));
                    }
                }
                prefix[level] = indexes.get(level);
            }
            expected.put(b, new Expected(nowNanos, f.hop(), f.host(), true));
            return;
        }
        List<BranchId> below = new ArrayList<>();
        int highest = Integer.MIN_VALUE;
        for (Map.Entry<BranchId, Expected> x : expected.entrySet()) {
            if (isAbove(b, x.getKey())) {
                below.add(x.getKey());
                highest = Math.max(highest, x.getValue().hop);
            }
        }
        if (!below.isEmpty() && f.hop() < highest) {
            return; // sent before those branches split from it: stale
        }
        below.forEach(expected::remove);
        expected.put(b, new Expected(nowNanos, f.hop(), f.host(), true)); // merged, or a branch not known before
    }

    /** The expected branch silent longest, if silent for longer than the broken-after time at {@code nowNanos}; else {@code null}. */
    public synchronized Silence silent(long nowNanos) {
        Map.Entry<BranchId, Expected> longest = null;
        for (Map.Entry<BranchId, Expected> x : expected.entrySet()) {
            if (longest == null || x.getValue().heardNanos - longest.getValue().heardNanos < 0) {
                longest = x;
            }
        }
        if (longest == null) {
            return null;
        }
        Expected e = longest.getValue();
        long heard = e.heardNanos;
        if (expected.size() == 1 && lastFrameNanos - heard > 0) { // not split: any frame is a sign of life
            heard = lastFrameNanos;
        }
        if (nowNanos - heard <= brokenAfterNanos) {
            return null;
        }
        return new Silence(longest.getKey(), nowNanos - heard, e.hop, e.host, e.heard);
    }

    /** The branches expected now (test hook). */
    synchronized List<BranchId> expected() {
        return List.copyOf(expected.keySet());
    }

    /** Whether {@code a} is a proper prefix of {@code b}: {@code b} is on a branch split from {@code a}. */
    private static boolean isAbove(BranchId a, BranchId b) {
        return a.depth() < b.depth() && b.indexes().subList(0, a.depth()).equals(a.indexes());
    }
}
