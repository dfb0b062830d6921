import io.rpcc.core.*;
import java.util.ArrayList;
import java.util.List;

/**
 * The chaining function of RethrownBranchFailureTest. Mode "split": splits the chain, at random (from
 * the chain's seed, the hop and the branch), into 1 to 3 branches on servers g1..g4, each calling
 * "work" (which may start a sub-chain that fails) or "boom" (which fails) and ending the branch, or
 * "work" then splitting again (at most 2 levels); merged at a random server (or here) by this
 * function or, in a nested split, sometimes by the default merge. Mode "merge": if a branch failed,
 * gives up on one of the failed branches at random by rethrowing its failure (three times in four),
 * else ends with the number of branches; mode "end": ends with the result.
 */
public class GiveUp implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String mode = state.get("mode", String.class);
        ChainContext ctx = ChainContext.current();
        long seed = state.get("seed", Long.class);
        long x = mix(seed * 0x9E3779B97F4A7C15L + ctx.hop() * 0xBF58476D1CE4E5B9L + ctx.branch().toString().hashCode());
        if (mode.equals("merge")) {
            List<BranchOutcome> failed = new ArrayList<>();
            for (Object o : (List<?>) result) {
                if (((BranchOutcome) o).failed()) {
                    failed.add((BranchOutcome) o);
                }
            }
            if (!failed.isEmpty() && Long.remainderUnsigned(x, 4) != 0) {
                throw failed.get((int) Long.remainderUnsigned(x >>> 8, failed.size())).failure();
            }
            return NextHop.end(((List<?>) result).size());
        }
        if (!mode.equals("split")) {
            return NextHop.end(result);
        }
        int depth = state.get("depth", Integer.class);
        int n = 1 + (int) Long.remainderUnsigned(x, 3);
        List<NextHop.Call> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            x = mix(x + i);
            String server = "g" + (1 + Long.remainderUnsigned(x >>> 8, 4));
            switch ((int) Long.remainderUnsigned(x >>> 16, 6)) {
                case 0, 1 -> calls.add(NextHop.callThenEnd(server, "work", result));
                case 2 -> calls.add(NextHop.call(server, "work", result, state.with("mode", depth < 2 ? "split" : "end")
                        .with("depth", depth + 1).with("nested", "yes")));
                default -> calls.add(NextHop.callThenEnd(server, "boom", result));
            }
        }
        x = mix(x);
        String mergeAt = Long.remainderUnsigned(x, 5) == 4 ? null : "g" + (1 + Long.remainderUnsigned(x, 5));
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
