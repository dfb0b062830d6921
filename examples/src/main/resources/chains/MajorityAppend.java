import io.rpcc.core.*;
import java.util.ArrayList;
import java.util.List;

/**
 * The replicated log of Waldo's section 3.5 as one atomic chain: at the root, send the entry to every
 * other replica at once (a split); where a replica cannot be reached its branch fails, which the merge
 * counts and forgives, like Waldo's {@code catch (NetworkException)}. If a majority of all the replicas,
 * counting the root, took the entry, the root appends it too and the chain ends with the log's length;
 * otherwise the merge gives up, the chain fails and every replica that appended backs out.
 */
public class MajorityAppend implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String root = state.get("root", String.class);
        if ("split".equals(state.get("step", String.class))) {
            List<NextHop.Call> appends = new ArrayList<>();
            for (Object replica : state.get("replicas", List.class)) {
                appends.add(NextHop.callThenEnd((String) replica, "append", result));
            }
            return NextHop.split(appends).mergeAt(root, ChainingFunctionSource.SAME,
                    state.with("step", "merge").with("entry", result));
        }
        int took = 1; // the root itself
        int all = 1;
        for (Object o : (List<?>) result) {
            all++;
            if (((BranchOutcome) o).succeeded()) {
                took++;
            }
        }
        if (took <= all / 2) {
            throw new IllegalStateException("only " + took + " of " + all + " replicas took the entry, not a majority");
        }
        return NextHop.callThenEnd(root, "append", state.get("entry"));
    }
}
