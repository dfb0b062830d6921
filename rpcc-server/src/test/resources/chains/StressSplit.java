import io.rpcc.core.*;
import java.util.ArrayList;
import java.util.List;

/**
 * The chaining function of SplitMergeStressTest. Mode "split": splits the chain, at random (from the
 * chain's seed, the hop and the branch), into 1 to 4 branches on servers w1..w4, each calling "work"
 * (which ends the branch), "work" then splitting again (one level deeper, at most 3 levels), or
 * "flaky" (which replies and fails); merged at a random server (or here) by this function, which
 * recovers from failed branches, or, in a branch that split again, by the default merge, whose
 * failure becomes the enclosing split's failed outcome (and whose list of results ends the branch). Mode "merge" and "end": ends with state "ret".
 */
public class StressSplit implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String mode = state.get("mode", String.class);
        if (!mode.equals("split")) {
            return NextHop.end(state.get("ret"));
        }
        ChainContext ctx = ChainContext.current();
        long seed = state.get("seed", Long.class);
        int depth = state.get("depth", Integer.class);
        long x = seed * 0x9E3779B97F4A7C15L + ctx.hop() * 0xBF58476D1CE4E5B9L + ctx.branch().toString().hashCode();
        x = mix(x);
        int n = 1 + (int) Long.remainderUnsigned(x, 4);
        List<NextHop.Call> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            x = mix(x + i);
            String server = "w" + (1 + Long.remainderUnsigned(x >>> 8, 4));
            switch ((int) Long.remainderUnsigned(x >>> 16, 8)) {
                case 0, 1, 2, 3, 4 -> calls.add(NextHop.callThenEnd(server, "work", result));
                case 5 -> calls.add(NextHop.call(server, "work", result, state.with("mode", depth < 2 ? "split" : "end")
                        .with("depth", depth + 1).with("ret", result).with("nested", "yes")));
                default -> calls.add(NextHop.callThenEnd(server, "flaky", result));
            }
        }
        x = mix(x);
        String mergeAt = Long.remainderUnsigned(x, 5) == 4 ? null : "w" + (1 + Long.remainderUnsigned(x, 5));
        NextHop.Split split = NextHop.split(calls);
        if ("yes".equals(state.get("nested")) && Long.remainderUnsigned(x >>> 8, 3) == 0) {
            return mergeAt == null ? split : split.mergeAt(mergeAt); // the default merge
        }
        return split.mergeAt(mergeAt, ChainingFunctionSource.SAME, state.with("mode", "merge"));
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
