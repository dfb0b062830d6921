package io.rpcc.examples.copy;

import io.rpcc.testkit.WanEmulator;
import io.rpcc.testkit.WanTopology;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The ideal copy time, computed from the topology alone (zero processing time), with the runners'
 * block size and pipelining depth: a small discrete-event simulation. Each client copies its files
 * one after the other; within a file, a block starts when one of the {@link Copy#DEPTH} in flight
 * is done.
 *
 * <p>Every message pays its link's one-way latency; data blocks also their transmission time.
 * Links are shared as the emulator shares them ({@link WanEmulator}): the connections crossing a
 * link take turns of one slice ({@link WanEmulator#sliceBytes}), as with a router's fair queuing,
 * and within a connection messages go in order. Connections are those rpcc opens, one per pair of
 * nodes: each client has its own with each server, and the two servers share one, so chain
 * copy's blocks from all clients queue on it one after the other. Requests and acknowledgements
 * take no time to transmit, but wait for their turn.
 *
 * <p>Chain copy: request client → source, block source → destination, acknowledgement
 * destination → client. RPC copy: request client → source, block source → client, block
 * client → destination, acknowledgement destination → client.
 */
public final class CopyModel {
    private CopyModel() {
    }

    /** One direction of a link: the connections with something to send take turns, a slice each. */
    private static final class Pipe {
        final WanTopology.Link link;
        final int slice;
        final ArrayDeque<Flow> turns = new ArrayDeque<>();
        boolean busy;

        Pipe(WanTopology.Link link) {
            this.link = link;
            this.slice = WanEmulator.sliceBytes(link);
        }
    }

    /** One direction of one connection: its messages cross in order. */
    private static final class Flow {
        final Pipe pipe;
        final ArrayDeque<Message> queue = new ArrayDeque<>();

        Flow(Pipe pipe) {
            this.pipe = pipe;
        }
    }

    /** A message of one block at one step of its path; {@code left} is what is still to transmit. */
    private static final class Message {
        final int client;
        final long size;
        final int step;
        long left;

        Message(int client, long size, int step, boolean data) {
            this.client = client;
            this.size = size;
            this.step = step;
            this.left = data ? size : 0;
        }
    }

    /**
     * A step of a block's path: a message over {@code pipe} on the connection {@code connection}
     * (per client unless {@code shared}), carrying the block's data or not.
     */
    private record Step(Pipe pipe, String connection, boolean shared, boolean data) {
    }

    /** A message arrived where its step took it ({@code pipe == null}), or a pipe finished a slice. */
    private record Event(long at, long seq, Message message, Pipe pipe) {
    }

    /** The simulation of one run. */
    private static final class Run {
        final List<Step> path;
        final long bytes;
        final int blocks;
        final int files;
        final Map<String, Flow> flows = new HashMap<>();
        final PriorityQueue<Event> events = new PriorityQueue<>(
                (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
        final int[] filesDone;
        final int[] issued;
        final int[] finishedInFile;
        long seq;
        long end;

        Run(List<Step> path, long bytes, int clients, int files) {
            this.path = path;
            this.bytes = bytes;
            this.blocks = (int) ((bytes + Copy.BLOCK - 1) / Copy.BLOCK);
            this.files = files;
            this.filesDone = new int[clients];
            this.issued = new int[clients];
            this.finishedInFile = new int[clients];
        }

        void at(long time, Message m, Pipe p) {
            events.add(new Event(time, seq++, m, p));
        }

        void startFile(int client, long now) {
            for (int i = 0; i < Math.min(Copy.DEPTH, blocks); i++) {
                startBlock(client, now);
            }
        }

        void startBlock(int client, long now) {
            long size = Math.min(Copy.BLOCK, bytes - (long) issued[client]++ * Copy.BLOCK);
            enter(new Message(client, size, -1, false), now);
        }

        /** Message {@code m} has arrived: the block takes its next step, or is done. */
        void enter(Message m, long now) {
            int next = m.step + 1;
            if (next < path.size()) {
                Step s = path.get(next);
                Flow f = flows.computeIfAbsent(s.connection() + (s.shared() ? "" : "/" + m.client), k -> new Flow(s.pipe()));
                f.queue.add(new Message(m.client, m.size, next, s.data()));
                if (f.queue.size() == 1) {
                    f.pipe.turns.add(f);
                }
                if (!f.pipe.busy) {
                    serve(f.pipe, now);
                }
                return;
            }
            int c = m.client;
            finishedInFile[c]++;
            if (issued[c] < blocks) {
                startBlock(c, now);
            } else if (finishedInFile[c] == blocks) {
                filesDone[c]++;
                finishedInFile[c] = 0;
                issued[c] = 0;
                if (filesDone[c] < files) {
                    startFile(c, now);
                } else {
                    end = Math.max(end, now);
                }
            }
        }

        /** The pipe is free: the next connection in turn sends a slice, or a short message at once. */
        void serve(Pipe p, long now) {
            while (!p.turns.isEmpty()) {
                Flow f = p.turns.poll();
                Message m = f.queue.peek();
                long latency = p.link.latency().toNanos();
                if (m.left == 0) {
                    f.queue.poll();
                    at(now + latency, m, null);
                    if (!f.queue.isEmpty()) {
                        p.turns.add(f);
                    }
                    continue;
                }
                long n = Math.min(p.slice, m.left);
                m.left -= n;
                long sent = now + p.link.transmissionNanos(n);
                if (m.left == 0) {
                    f.queue.poll();
                    at(sent + latency, m, null);
                }
                if (!f.queue.isEmpty()) {
                    p.turns.add(f);
                }
                p.busy = true;
                at(sent, null, p);
                return;
            }
            p.busy = false;
        }

        double runMs() {
            for (int c = 0; c < filesDone.length; c++) {
                startFile(c, 0);
            }
            while (!events.isEmpty()) {
                Event e = events.poll();
                if (e.pipe != null) {
                    serve(e.pipe, e.at);
                } else {
                    enter(e.message, e.at);
                }
            }
            return end / 1e6;
        }
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
                ? List.of(new Step(up, "client>source", false, false), new Step(between, "source>destination", true, true),
                        new Step(down, "destination>client", false, false))
                : List.of(new Step(up, "client>source", false, false), new Step(down, "source>client", false, true),
                        new Step(up, "client>destination", false, true), new Step(down, "destination>client", false, false));
        return new Run(path, bytes, clients, files).runMs();
    }

    /**
     * A message of each block's path, for {@link #idealMs(WanTopology, List, long)}: from a node in
     * {@code fromSite} to one in {@code toSite}, on the connection named {@code connection} (one per
     * pair of nodes and direction), carrying the block's data or not.
     */
    public record Leg(String fromSite, String toSite, String connection, boolean data) {
    }

    /**
     * Milliseconds for one client to copy one file of {@code bytes} bytes, each block going along
     * {@code legs} in order (the last one ends the block at the client), with the runners' block size
     * and pipelining depth; links of the same pair of sites and direction are shared.
     */
    public static double idealMs(WanTopology t, List<Leg> legs, long bytes) {
        Map<String, Pipe> pipes = new HashMap<>();
        List<Step> path = legs.stream().map(l -> new Step(pipes.computeIfAbsent(l.fromSite() + ">" + l.toSite(),
                k -> new Pipe(t.link(l.fromSite(), l.toSite()))), l.connection(), true, l.data())).toList();
        return new Run(path, bytes, 1, 1).runMs();
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
