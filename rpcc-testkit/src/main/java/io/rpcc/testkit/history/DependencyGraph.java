package io.rpcc.testkit.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The direct serialization graph: nodes are transactions (0 is the initial state), edges carry a type
 * (ww, wr, rw), the key and, for rw, the version the reader saw. {@link #freeze()} builds the adjacency,
 * then {@link #components} (Tarjan, iterative) and {@link #shortestCycle} (breadth-first) run over a
 * subset of nodes and edge types.
 */
final class DependencyGraph {
    static final int WW = 0;
    static final int WR = 1;
    static final int RW = 2;
    static final int ALL = 0b111;

    /** How many breadth-first searches a large component gets when looking for its shortest cycle. */
    private static final int STARTS = 12;
    /** A component this small gets a search from each of its nodes: the cycle found is a shortest one. */
    private static final int SMALL = 64;

    private final int nodes;
    private int count;
    private int[] from = new int[1024];
    private int[] to = new int[1024];
    private int[] key = new int[1024];
    private int[] seen = new int[1024];
    private byte[] type = new byte[1024];
    /** After {@link #freeze()}: the edges out of node v are {@code order[offset[v]..offset[v+1])}. */
    private int[] offset = new int[0];
    private int[] order = new int[0];
    /** Work arrays of the searches, one slot per node, allocated once by {@link #freeze()}. */
    private int[] index = new int[0];
    private int[] low = new int[0];
    private int[] pos = new int[0];
    private boolean[] onStack = new boolean[0];
    /** Per node, the edge a breadth-first search reached it by; -2 when not reached (between searches: all). */
    private int[] parentEdge = new int[0];

    DependencyGraph(int nodes) {
        this.nodes = nodes;
    }

    int edges() {
        return count;
    }

    /**
     * Adds an edge unless it is a loop.
     *
     * @param seenVersion for rw, the version (its writer's node) the reader saw; else unused
     */
    void add(int f, int t, int edgeType, int k, int seenVersion) {
        if (f == t) {
            return;
        }
        if (count == from.length) {
            int n = count * 2;
            from = Arrays.copyOf(from, n);
            to = Arrays.copyOf(to, n);
            key = Arrays.copyOf(key, n);
            seen = Arrays.copyOf(seen, n);
            type = Arrays.copyOf(type, n);
        }
        from[count] = f;
        to[count] = t;
        key[count] = k;
        seen[count] = seenVersion;
        type[count] = (byte) edgeType;
        count++;
    }

    int from(int e) {
        return from[e];
    }

    int to(int e) {
        return to[e];
    }

    int key(int e) {
        return key[e];
    }

    int seen(int e) {
        return seen[e];
    }

    int type(int e) {
        return type[e];
    }

    /** Builds the adjacency (counting sort of the edges by source). */
    void freeze() {
        offset = new int[nodes + 1];
        for (int e = 0; e < count; e++) {
            offset[from[e] + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            offset[v + 1] += offset[v];
        }
        order = new int[count];
        int[] next = Arrays.copyOf(offset, nodes);
        for (int e = 0; e < count; e++) {
            order[next[from[e]]++] = e;
        }
        index = new int[nodes];
        low = new int[nodes];
        pos = new int[nodes];
        onStack = new boolean[nodes];
        parentEdge = new int[nodes];
        Arrays.fill(parentEdge, -2);
    }

    /**
     * The strongly connected components of more than one node among {@code members} (nodes {@code v}
     * with {@code member[v] == id}), using only edges whose type is in {@code mask}.
     */
    List<int[]> components(int[] members, int[] member, int id, int mask) {
        for (int v : members) {
            index[v] = -1;
        }
        int[] stack = new int[members.length];
        int sp = 0;
        int[] call = new int[members.length];
        int cp = 0;
        int next = 0;
        List<int[]> out = new ArrayList<>();
        for (int s : members) {
            if (index[s] != -1) {
                continue;
            }
            index[s] = low[s] = next++;
            stack[sp++] = s;
            onStack[s] = true;
            call[cp++] = s;
            pos[s] = offset[s];
            while (cp > 0) {
                int v = call[cp - 1];
                if (pos[v] < offset[v + 1]) {
                    int e = order[pos[v]++];
                    int w = to[e];
                    if ((mask >> type[e] & 1) == 0 || member[w] != id) {
                        continue;
                    }
                    if (index[w] == -1) {
                        index[w] = low[w] = next++;
                        stack[sp++] = w;
                        onStack[w] = true;
                        call[cp++] = w;
                        pos[w] = offset[w];
                    } else if (onStack[w]) {
                        low[v] = Math.min(low[v], index[w]);
                    }
                    continue;
                }
                cp--;
                if (cp > 0) {
                    int u = call[cp - 1];
                    low[u] = Math.min(low[u], low[v]);
                }
                if (low[v] == index[v]) {
                    int start = sp;
                    do {
                        start--;
                        onStack[stack[start]] = false;
                    } while (stack[start] != v);
                    if (sp - start > 1) {
                        int[] c = Arrays.copyOfRange(stack, start, sp);
                        Arrays.sort(c);
                        out.add(c);
                    }
                    sp = start;
                }
            }
        }
        return out;
    }

    /**
     * A shortest cycle (as its edges, in order) among the nodes {@code v} with {@code member[v] == id}
     * using edges of the types in {@code mask}; the search starts from every node of a small component,
     * else from a few, sources of {@code preferred} edges first, so the cycle is then short but not
     * always a shortest one.
     */
    int[] shortestCycle(int[] component, int[] member, int id, int mask, int preferred) {
        int[] starts;
        if (component.length <= SMALL) {
            starts = component;
        } else {
            int[] picked = new int[STARTS];
            int n = 0;
            for (int i = 0; i < component.length && n < STARTS; i++) {
                int v = component[i];
                for (int p = offset[v]; p < offset[v + 1]; p++) {
                    int e = order[p];
                    if (type[e] == preferred && member[to[e]] == id) {
                        picked[n++] = v;
                        break;
                    }
                }
            }
            for (int i = 0; i < component.length && n < STARTS; i++) {
                picked[n++] = component[i];
            }
            starts = Arrays.copyOf(picked, n);
        }
        int[] best = new int[0];
        int[] queue = new int[component.length];
        for (int s : starts) {
            int[] cycle = cycleThrough(s, member, id, mask, queue, best.length == 0 ? Integer.MAX_VALUE : best.length);
            if (cycle.length > 0 && (best.length == 0 || cycle.length < best.length)) {
                best = cycle;
                if (best.length == 2) {
                    break;
                }
            }
        }
        return best;
    }

    /** A shortest cycle through {@code s} no longer than {@code limit} edges, or an empty array. */
    private int[] cycleThrough(int s, int[] member, int id, int mask, int[] queue, int limit) {
        int head = 0;
        int tail = 0;
        queue[tail++] = s;
        parentEdge[s] = -1;
        int closing = -1;
        int levelEnd = tail;
        int level = 0;
        search:
        while (head < tail && level < limit) {
            int v = queue[head++];
            for (int p = offset[v]; p < offset[v + 1]; p++) {
                int e = order[p];
                int w = to[e];
                if ((mask >> type[e] & 1) == 0 || member[w] != id) {
                    continue;
                }
                if (w == s) {
                    closing = e;
                    break search;
                }
                if (parentEdge[w] == -2) {
                    parentEdge[w] = e;
                    queue[tail++] = w;
                }
            }
            if (head == levelEnd) {
                level++;
                levelEnd = tail;
            }
        }
        int[] cycle = new int[0];
        if (closing != -1) {
            List<Integer> back = new ArrayList<>();
            back.add(closing);
            for (int v = from[closing]; v != s; v = from[parentEdge[v]]) {
                back.add(parentEdge[v]);
            }
            cycle = new int[back.size()];
            for (int i = 0; i < cycle.length; i++) {
                cycle[i] = back.get(cycle.length - 1 - i);
            }
        }
        for (int i = 0; i < tail; i++) {
            parentEdge[queue[i]] = -2;
        }
        return cycle;
    }
}
