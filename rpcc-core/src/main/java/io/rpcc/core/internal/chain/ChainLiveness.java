package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What the originator knows of whether one of its chains is alive (paper 3.9, 3.10): the branches
 * it expects heartbeats from, and when it last heard from each. It starts expecting the branch the
 * chain started on. A heartbeat from a branch below an expected one says that branch split: the
 * originator then expects every branch of the split (it learns how many from the heartbeat's sibling
 * counts) instead; a heartbeat from a branch above expected ones says they merged. Hop numbers tell
 * a stale heartbeat (sent before a merge or split that the originator has already heard of, overtaken
 * on another path) from a new split or merge: a split's branches have higher hop numbers than the
 * hop that split, and a merge has the highest hop number of its branches. A partial reply counts as
 * a sign of life of the branch that holds the chain only if it comes from that branch at or after
 * the hop last heard of there (a reply of an earlier hop, still replying, says nothing of the hop
 * holding the chain now). The chain is broken when an expected branch has been silent for longer
 * than the broken-after time.
 *
 * <p>Hops that <em>owe replies</em> are watched too: a hop that sent a partial reply, or whose node
 * heartbeats for it after it handed the chain on (work it started still runs), holds a share of the
 * chain's credit until its QUIET frame returns it. Each is expected to reply or heartbeat within the
 * broken-after time until its QUIET (or an ERROR naming it) arrives; one that goes silent breaks the
 * chain, also after the chain's result has arrived, since its replies and credit will never come.
 * After the result (or error), a chain whose credit is still out and of which nothing at all has
 * been heard for the broken-after time is broken too (a hop that owed replies but died before the
 * originator heard of it). Thread-safe: frames arrive on event loops, the check runs on the node's
 * sweep.
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
     * @param owedReplies whether what went silent is a hop that owed the chain partial replies (and
     *     credit), rather than the branch holding the chain
     */
    public record Silence(BranchId branch, long silentNanos, int hop, String host, boolean heard, boolean owedReplies) {
    }

    /** A hop of the chain, as its replies, heartbeats and QUIET frame name it. */
    private record HopKey(BranchId branch, int hop, String host) {
    }

    /** The most hops owing replies (and hops gone quiet) remembered per chain; beyond, the fallback rule watches. */
    static final int MAX_HOPS_WATCHED = 1024;

    private static final class Expected {
        long heardNanos;
        int hop;
        String host;
        boolean heard;
        /** The highest hop of this branch known to have handed the chain on: its replies say nothing of the holder. */
        int handedOnHop = -1;

        Expected(long heardNanos, int hop, String host, boolean heard) {
            this.heardNanos = heardNanos;
            this.hop = hop;
            this.host = host;
            this.heard = heard;
        }
    }

    private final long brokenAfterNanos;
    private final Map<BranchId, Expected> expected = new HashMap<>(2); // guarded by this
    private volatile long lastFrameNanos; // of the frames that are a sign of life of the branch holding the chain
    /** Hops that owe the chain replies, and when they were last heard from. Guarded by this. */
    private final Map<HopKey, long[]> owing = new HashMap<>(2);
    /** Hops whose QUIET (or ERROR) arrived: a heartbeat of theirs overtaken on another path is stale. Guarded by this. */
    private final Set<HopKey> done = new HashSet<>(2);
    /** Hops (hop number and host) an ERROR frame named. Guarded by this. */
    private final Set<HopKey> failed = new HashSet<>(2);
    /** When anything of the chain last arrived. */
    private volatile long lastAnyNanos;
    /** The hop last heard from (any frame naming one), for the fallback rule's message. */
    private volatile HopKey lastHeard;
    /** When the chain was sent (nothing heard of it yet while {@link #lastAnyNanos} is this). */
    private final long sentNanos;

    /**
     * A chain started at {@code nowNanos} on {@code branch}, whose first hop {@code hop} went to
     * {@code server}, broken when a branch is silent for longer than {@code brokenAfterNanos}.
     */
    public ChainLiveness(BranchId branch, int hop, String server, long brokenAfterNanos, long nowNanos) {
        this.brokenAfterNanos = brokenAfterNanos;
        this.lastFrameNanos = nowNanos;
        this.lastAnyNanos = nowNanos;
        this.sentNanos = nowNanos;
        this.lastHeard = new HopKey(branch, hop - 1, server);
        expected.put(branch, new Expected(nowNanos, hop - 1, server, false));
    }

    /**
     * Where the chain was last heard of, as of {@code nowNanos}, for the message of a chain that
     * timed out: how long ago anything of it arrived and the last hop that replied or heartbeat
     * (a chain heard of lately was alive but slow; one never heard of was lost on its way).
     */
    public String lastHeardOf(long nowNanos) {
        HopKey k = lastHeard;
        long any = lastAnyNanos;
        long ago = TimeUnit.NANOSECONDS.toMillis(nowNanos - any);
        if (any == sentNanos) {
            return "nothing of it arrived since it was sent to '" + k.host() + "' for hop " + (k.hop() + 1) + ", " + ago
                    + " ms ago";
        }
        return "the last of its frames arrived " + ago + " ms before the end; the last hop heard from: hop " + k.hop()
                + " on '" + k.host() + "'";
    }

    /** The broken-after time. */
    public long brokenAfterNanos() {
        return brokenAfterNanos;
    }

    /**
     * A frame of the chain that names no hop (its RESULT or ERROR) arrived at {@code nowNanos}: a
     * sign of life if the chain has not split.
     */
    public void heard(long nowNanos) {
        lastFrameNanos = nowNanos;
        lastAnyNanos = nowNanos;
    }

    /**
     * A partial reply of hop {@code hop} at {@code host} on {@code branch} arrived at {@code nowNanos}:
     * that hop owes the chain its credit until its QUIET; and if the chain has not split and the reply
     * comes from the branch holding it, at or after the hop last heard of there, a sign of its life.
     */
    public synchronized void replied(BranchId branch, int hop, String host, long nowNanos) {
        lastAnyNanos = nowNanos;
        HopKey key = lastHeard; // (on the reply path: a hop's replies usually come in a row, one key serves them)
        if (key.hop() != hop || !Objects.equals(key.host(), host) || !key.branch().equals(branch)) {
            key = new HopKey(branch, hop, host);
            lastHeard = key;
        }
        owes(key, nowNanos);
        Expected e = expected.get(branch);
        if (e != null && expected.size() == 1 && hop >= e.hop && hop > e.handedOnHop) {
            lastFrameNanos = nowNanos;
        }
    }

    /** Hop {@code hop} of {@code branch} has handed the chain on: its replies are no sign of life of the holder. */
    private void handedOn(BranchId branch, int hop) {
        Expected e = expected.get(branch);
        if (e != null && hop > e.handedOnHop) {
            e.handedOnHop = hop;
        }
    }

    /**
     * The QUIET frame of hop {@code hop} at {@code host} on {@code branch} arrived at {@code nowNanos}:
     * it owes nothing more. A QUIET that names no host (a node that does not say) changes nothing.
     */
    public synchronized void quiet(BranchId branch, int hop, String host, long nowNanos) {
        lastAnyNanos = nowNanos;
        if (host == null) {
            return;
        }
        HopKey key = new HopKey(branch, hop, host);
        owing.remove(key);
        handedOn(branch, hop);
        if (done.size() < MAX_HOPS_WATCHED) {
            done.add(key);
        }
    }

    /**
     * An ERROR frame naming hop {@code hop} at {@code host} arrived at {@code nowNanos}: it returned
     * that hop's credit (or its share of it): the hop, on whichever branch, is not watched any more.
     */
    public synchronized void failed(int hop, String host, long nowNanos) {
        lastAnyNanos = nowNanos;
        owing.keySet().removeIf(k -> k.hop() == hop && host.equals(k.host()));
        if (failed.size() < MAX_HOPS_WATCHED) {
            failed.add(new HopKey(BranchId.root(), hop, host));
        }
    }

    /** Hop {@code key} owes the chain replies and was heard from at {@code nowNanos}. Called holding this. */
    private void owes(HopKey key, long nowNanos) {
        long[] heard = owing.get(key);
        if (heard != null) {
            heard[0] = nowNanos;
        } else if (!done.contains(key) && !failed.contains(new HopKey(BranchId.root(), key.hop(), key.host()))
                && owing.size() < MAX_HOPS_WATCHED) {
            owing.put(key, new long[] {nowNanos});
        }
    }

    /** A heartbeat of the chain arrived at {@code nowNanos}. */
    public synchronized void heartbeat(HeartbeatFrame f, long nowNanos) {
        lastAnyNanos = nowNanos;
        HopKey key = new HopKey(f.branch(), f.hop(), f.host());
        lastHeard = key;
        if (f.owesReplies()) { // from a hop that handed the chain on: says nothing of the hop holding it
            owes(key, nowNanos);
            handedOn(f.branch(), f.hop());
            return;
        }
        long[] owed = owing.get(key); // a hop that replied and still holds the chain
        if (owed != null) {
            owed[0] = nowNanos;
        }
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

    /**
     * What has been silent for longer than the broken-after time at {@code nowNanos}, if anything: the
     * expected branch silent longest (unless the chain's outcome has arrived: {@code outcomeIn}),
     * else the hop owing replies silent longest, else, once the outcome is in, the whole chain if
     * nothing of it arrived for that long; {@code null} if nothing is.
     */
    public synchronized Silence silent(long nowNanos, boolean outcomeIn) {
        Silence s = outcomeIn ? null : silentBranch(nowNanos);
        if (s != null) {
            return s;
        }
        Map.Entry<HopKey, long[]> oldest = null;
        for (Map.Entry<HopKey, long[]> x : owing.entrySet()) {
            if (oldest == null || x.getValue()[0] - oldest.getValue()[0] < 0) {
                oldest = x;
            }
        }
        if (oldest != null) {
            long silent = nowNanos - oldest.getValue()[0];
            HopKey k = oldest.getKey();
            return silent > brokenAfterNanos ? new Silence(k.branch(), silent, k.hop(), k.host(), true, true) : null;
        }
        long silent = nowNanos - lastAnyNanos;
        if (outcomeIn && silent > brokenAfterNanos) {
            HopKey k = lastHeard;
            return new Silence(k.branch(), silent, k.hop(), k.host(), false, true);
        }
        return null;
    }

    /** {@link #silent(long, boolean)} of a chain whose outcome has not arrived. */
    public Silence silent(long nowNanos) {
        return silent(nowNanos, false);
    }

    /** The expected branch silent longest, if silent for longer than the broken-after time; else {@code null}. */
    private Silence silentBranch(long nowNanos) {
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
        return new Silence(longest.getKey(), nowNanos - heard, e.hop, e.host, e.heard, false);
    }

    /** The hops owing replies watched now, as {@code hop@host} (test hook). */
    synchronized List<String> owing() {
        return owing.keySet().stream().map(k -> k.hop() + "@" + k.host()).sorted().toList();
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
