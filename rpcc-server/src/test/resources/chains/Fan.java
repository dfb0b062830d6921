import io.rpcc.core.*;
import java.util.ArrayList;
import java.util.List;

/**
 * The chaining function of SplitMergeTest, driven by its state.
 * step "split": splits into the branches of "to" (comma-separated "server:function[:*]"; a "*" branch
 * goes on with this function and splits again into "inner", merged at its own server), each called with
 * this hop's result; merged at "mergeAt" ("" = here) by this function (merge "fn") or the default merge.
 * step "merge": joins the outcomes in branch order ("!index:Exception@host#hop" for a failed one) and
 * calls "then".tag with them, or ends with them if there is no "then"; with "then" = "rethrow", throws
 * the first failed branch's failure.
 */
public class Fan implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String step = state.get("step", String.class);
        if (step.equals("split")) {
            List<NextHop.Call> calls = new ArrayList<>();
            for (String to : parts(state.get("to", String.class), ',')) {
                List<String> p = parts(to, ':');
                if (p.size() > 2) {
                    calls.add(NextHop.call(p.get(0), p.get(1), result, state.with("to", state.get("inner", String.class))
                            .with("mergeAt", p.get(0)).with("then", "")));
                } else {
                    calls.add(NextHop.callThenEnd(p.get(0), p.get(1), result));
                }
            }
            String at = state.get("mergeAt", String.class);
            NextHop.Split split = NextHop.split(calls);
            if (state.get("merge", String.class).equals("fn")) {
                return split.mergeAt(at.isEmpty() ? null : at, ChainingFunctionSource.SAME, state.with("step", "merge"));
            }
            return at.isEmpty() ? split : split.mergeAt(at);
        }
        if (step.equals("merge")) {
            if (state.get("then", String.class).equals("rethrow")) { // gives up on the first failed branch
                for (Object o : (List<?>) result) {
                    if (!((BranchOutcome) o).succeeded()) {
                        throw ((BranchOutcome) o).failure();
                    }
                }
                return NextHop.end("all " + ((List<?>) result).size() + " branches succeeded");
            }
            StringBuilder out = new StringBuilder("[");
            for (Object o : (List<?>) result) {
                BranchOutcome b = (BranchOutcome) o;
                if (out.length() > 1) {
                    out.append('|');
                }
                if (b.succeeded()) {
                    out.append(b.value());
                } else {
                    ChainException e = b.failure();
                    String name = e.exceptionName();
                    out.append('!').append(b.index()).append(':').append(name.substring(name.lastIndexOf('.') + 1))
                            .append('@').append(e.host()).append('#').append(e.hop());
                }
            }
            out.append(']');
            String then = state.get("then", String.class);
            ChainContext.current().console().println("merged " + out + " on branch " + ChainContext.current().branch());
            return then.isEmpty() ? NextHop.end(out.toString()) : NextHop.callThenEnd(then, "tag", out.toString());
        }
        return NextHop.end(result);
    }

    /** {@code s} cut at each {@code sep} (String.split's regular expressions are not in the sandbox). */
    static List<String> parts(String s, char sep) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, from)) {
            out.add(s.substring(from, i));
            from = i + 1;
        }
        out.add(s.substring(from));
        return out;
    }
}
