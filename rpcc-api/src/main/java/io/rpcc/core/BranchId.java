package io.rpcc.core;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Which branch of a chain a hop belongs to (paper section 3.10): a short sequence of indexes, one
 * per split on the way from the chain's start. A chain that never split is on the {@linkplain #root()
 * root} branch, the empty sequence; when a chain splits ({@link NextHop#split}), branch {@code b}'s
 * {@code i}-th part, counting from 1 as in the paper (chain 74's parts are 74.1, 74.2, ...), is on
 * {@code b.child(i)}. Read it at a hop with {@code ChainContext.current().branch()}; there it also
 * knows how many siblings it has ({@link #siblings()}).
 *
 * <p>Branch ids are at most {@value #MAX_DEPTH} levels deep; indexes are not negative. Two ids are
 * equal when their indexes are.
 */
public final class BranchId {
    /** The deepest branch id. */
    public static final int MAX_DEPTH = 64;

    private static final BranchId ROOT = new BranchId(new int[0]);

    private final int[] indexes;
    private final int siblings;

    private BranchId(int[] indexes) {
        this(indexes, indexes.length == 0 ? 1 : 0);
    }

    private BranchId(int[] indexes, int siblings) {
        this.indexes = indexes;
        this.siblings = siblings;
    }

    /** The root branch: the chain as it started. */
    public static BranchId root() {
        return ROOT;
    }

    /**
     * The branch with these indexes, from the root down.
     *
     * @throws IllegalArgumentException if an index is negative or there are more than {@link #MAX_DEPTH}
     */
    public static BranchId of(int... indexes) {
        if (indexes.length == 0) {
            return ROOT;
        }
        if (indexes.length > MAX_DEPTH) {
            throw new IllegalArgumentException("a branch id is at most " + MAX_DEPTH + " levels deep, got "
                    + indexes.length);
        }
        for (int i : indexes) {
            if (i < 0) {
                throw new IllegalArgumentException("branch indexes must not be negative, got " + Arrays.toString(indexes));
            }
        }
        return new BranchId(indexes.clone());
    }

    /** The {@code index}-th branch of a split of this one. */
    public BranchId child(int index) {
        int[] next = Arrays.copyOf(indexes, indexes.length + 1);
        next[indexes.length] = index;
        return of(next);
    }

    /**
     * The {@code index}-th of the {@code siblings} branches of a split of this one.
     *
     * @throws IllegalArgumentException if {@code siblings} is less than 1
     */
    public BranchId child(int index, int siblings) {
        if (siblings < 1) {
            throw new IllegalArgumentException("a split has at least one branch, got " + siblings);
        }
        return new BranchId(child(index).indexes, siblings);
    }

    /**
     * How many branches the split that made this branch has, this one included (paper 3.10: each
     * branch knows its sibling count); 1 on the root; 0 if not known (an id made by {@link #of} or
     * {@link #child(int)}).
     */
    public int siblings() {
        return siblings;
    }

    /**
     * The branch this one was split from.
     *
     * @throws IllegalStateException on the root
     */
    public BranchId parent() {
        if (isRoot()) {
            throw new IllegalStateException("the root branch has no parent");
        }
        return indexes.length == 1 ? ROOT : new BranchId(Arrays.copyOf(indexes, indexes.length - 1), 0);
    }

    /** Whether this is the root branch. */
    public boolean isRoot() {
        return indexes.length == 0;
    }

    /** How many splits lie between the root and this branch. */
    public int depth() {
        return indexes.length;
    }

    /** The indexes, from the root down. */
    public List<Integer> indexes() {
        return IntStream.of(indexes).boxed().toList();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BranchId b && Arrays.equals(indexes, b.indexes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(indexes);
    }

    /** {@code "root"}, or the indexes joined by dots, e.g. {@code "0.2"}. */
    @Override
    public String toString() {
        return isRoot() ? "root" : IntStream.of(indexes).mapToObj(Integer::toString).collect(Collectors.joining("."));
    }
}
