package io.rpcc.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of one branch of a split chain, as the merge function receives it (paper 3.10): the
 * merge function's result argument is the {@code List<BranchOutcome>} of every branch, in branch
 * order. A branch either succeeded with a value or failed with the typed exception that ended it
 * (a {@link ServiceFunctionException} at the branch's hop, say, naming its host, hop and path, and
 * the branch in its message).
 *
 * <pre>{@code
 * public NextHop apply(ChainState state, Object result) {
 *     List<String> hits = new ArrayList<>();
 *     for (BranchOutcome o : (List<BranchOutcome>) result) {
 *         if (o.succeeded()) {
 *             hits.addAll(o.value(List.class));
 *         }                                            // a failed shard is left out
 *     }
 *     return NextHop.end(hits);
 * }
 * }</pre>
 *
 * <p>Outcomes exist only at the merge host: they are not serializable, so pass on their values, not
 * the outcomes. A JavaScript merge function sees each as an object with {@code index},
 * {@code branch} (e.g. {@code "1.2"}), {@code value}, {@code failed} and {@code error} (the failure's
 * message, or {@code null}).
 *
 * @param index the branch's position in the split, from 1
 * @param branch the branch's id as text, e.g. {@code "2"} or {@code "1.2"} (see {@link BranchId})
 * @param value what the branch ended with, or {@code null} if it failed
 * @param failed whether the branch failed
 * @param error the failure's message, or {@code null}
 * @param failure the failure, or {@code null}
 */
public record BranchOutcome(int index, String branch, @Nullable Object value, boolean failed, @Nullable String error,
                            @Nullable ChainException failure) {
    public BranchOutcome {
        Objects.requireNonNull(branch, "branch");
        if (failed != (failure != null)) {
            throw new IllegalArgumentException("a failed outcome has a failure, a successful one none");
        }
    }

    /** The outcome of branch {@code index} ({@code branch}) that ended with {@code value}. */
    public static BranchOutcome success(int index, BranchId branch, @Nullable Object value) {
        return new BranchOutcome(index, branch.toString(), value, false, null, null);
    }

    /** The outcome of branch {@code index} ({@code branch}) that failed with {@code failure}. */
    public static BranchOutcome failure(int index, BranchId branch, ChainException failure) {
        return new BranchOutcome(index, branch.toString(), null, true, failure.getMessage(), failure);
    }

    /** Whether the branch ended with a value. */
    public boolean succeeded() {
        return !failed;
    }

    /**
     * The branch's value as a {@code type}.
     *
     * @throws ChainException the branch's failure, if it failed
     * @throws ClassCastException if the value is not a {@code type}
     */
    public <T> @Nullable T value(Class<T> type) {
        if (failure != null) {
            throw failure;
        }
        return type.cast(value);
    }
}
