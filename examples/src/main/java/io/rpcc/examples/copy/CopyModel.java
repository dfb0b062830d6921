package io.rpcc.examples.copy;

import io.rpcc.testkit.WanTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The ideal copy time, computed from the topology alone (zero processing time), with the runners'
 * block size and pipelining depth: a small discrete-event simulation. Each client copies its files
 * one after the other; within a file, a block starts when one of the {@link Copy#DEPTH} in flight
 * is done. Every message pays its link's one-way latency; data blocks also their transmission
 * time on a link whose bandwidth all connections share, one block at a time, first come first
 * served. Requests and acknowledgements take no time to transmit, but wait their turn behind the
 * data already queued on their link, as packets do in a router's queue (and in the emulator).
 *
 * <p>Chain copy: request client → source, block source → destination, acknowledgement
 * destination → client. RPC copy: request client → source, block source → client, block
 * client → destination, acknowledgement destination → client.
 */
public final class CopyModel {
    private CopyModel() {
    }

    /** One direction of a link, shared by every block that crosses it. */
    private static final class Pipe {
        final WanTopology.Link link;
        long freeAt;

        Pipe(WanTopology.Link link) {
            this.link = link;
        }
    }

    /** A step of a block's path: a message over {@code pipe}, carrying the block's data or not. */
    private record Step(Pipe pipe, boolean data) {
    }

    private record Event(long at, long seq, int client, long size, int step) {
    }

    /**
     * Milliseconds until the last of {@code clients} clients in {@code clientSite} has copied
     * {@code files} files of {@code bytes} bytes each between two servers in Mountain View.
     */
    public static double idealMs(WanTopology t, String clientSite, long bytes, boolean chain, int clients, int files) {
        String servers = WanTopology.MOUNTAIN_VIEW;
        Pipe up = new Pipe(t.link(clientSite, servers));
        Pipe down = new Pipe(t.link(servers, clientSite));
        Pipe between = new Pipe(t.link(servers, servers));
        List<Step> path = chain
                ? List.of(new Step(up, false), new Step(between, true), new Step(down, false))
                : List.of(new Step(up, false), new Step(down, true), new Step(up, true), new Step(down, false));
        int blocks = (int) ((bytes + Copy.BLOCK - 1) / Copy.BLOCK);
        int[] filesDone = new int[clients];
        int[] issued = new int[clients];
        int[] finishedInFile = new int[clients];
        PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
        long[] seq = {0};
        List<Long> ends = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            for (int i = 0; i < Math.min(Copy.DEPTH, blocks); i++) {
                queue.add(new Event(0, seq[0]++, c, size(bytes, issued[c]++), 0));
            }
        }
        while (!queue.isEmpty()) {
            Event e = queue.poll();
            if (e.step < path.size()) {
                Step s = path.get(e.step);
                long sent = Math.max(e.at, s.pipe().freeAt); // first come, first served, as in a router's queue
                if (s.data()) {
                    s.pipe().freeAt = sent + s.pipe().link.transmissionNanos(e.size);
                    sent = s.pipe().freeAt;
                }
                queue.add(new Event(sent + s.pipe().link.latency().toNanos(), seq[0]++, e.client, e.size, e.step + 1));
                continue;
            }
            int c = e.client; // a block is done
            finishedInFile[c]++;
            if (issued[c] < blocks) {
                queue.add(new Event(e.at, seq[0]++, c, size(bytes, issued[c]++), 0));
            } else if (finishedInFile[c] == blocks) {
                filesDone[c]++;
                finishedInFile[c] = 0;
                issued[c] = 0;
                if (filesDone[c] < files) {
                    for (int i = 0; i < Math.min(Copy.DEPTH, blocks); i++) {
                        queue.add(new Event(e.at, seq[0]++, c, size(bytes, issued[c]++), 0));
                    }
                } else {
                    ends.add(e.at);
                }
            }
        }
        return ends.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6;
    }

    private static long size(long bytes, int block) {
        return Math.min(Copy.BLOCK, bytes - (long) block * Copy.BLOCK);
    }

    /**
     * Service functions on the critical path of one client's copy: two per round of
     * {@link Copy#DEPTH} blocks (read and write, or read and the chained write).
     */
    public static int hops(long bytes, int files) {
        int blocks = (int) ((bytes + Copy.BLOCK - 1) / Copy.BLOCK);
        return 2 * ((blocks + Copy.DEPTH - 1) / Copy.DEPTH) * files;
    }
}
