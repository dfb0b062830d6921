import io.rpcc.core.*;
import java.util.ArrayList;
import java.util.List;

/**
 * A search fanned out to every shard at once and merged near the client (paper 3.10): after the
 * front end parsed the query, the chain splits into one branch per shard (state "shards"), each
 * ending with that shard's hits; the front end ("mergeAt") merges them with this same function,
 * in shard order, leaving out a shard that failed.
 */
public class ShardedSearch implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        if (state.get("step", String.class).equals("split")) {         // after the front end parsed the query
            List<NextHop.Call> shards = new ArrayList<>();
            for (Object shard : state.get("shards", List.class)) {
                shards.add(NextHop.callThenEnd((String) shard, "search", result));   // its hits end its branch
            }
            return NextHop.split(shards)
                    .mergeAt(state.get("mergeAt", String.class), ChainingFunctionSource.SAME, state.with("step", "merge"));
        }
        List<String> hits = new ArrayList<>();                          // step "merge": result is the outcomes
        for (Object o : (List<?>) result) {
            BranchOutcome shard = (BranchOutcome) o;
            if (shard.succeeded()) {
                for (Object hit : (List<?>) shard.value()) {
                    hits.add((String) hit);
                }
            } else {                                                    // a failed branch is a failed outcome
                ChainContext.current().console().println("shard " + shard.branch() + " failed: " + shard.error());
            }
        }
        return NextHop.end(hits);                                       // or NextHop.call(...) on from the merge host
    }
}
