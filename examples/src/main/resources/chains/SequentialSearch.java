import io.rpcc.core.*;
import java.util.ArrayList;
import java.util.List;

/**
 * The same search as ShardedSearch done as sequential hops: after the front end, the chain visits
 * the shards one after the other (state "shards", "next"), carrying the hits so far in its state,
 * and the last shard's chaining function ends the chain with all of them.
 */
public class SequentialSearch implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        List<?> shards = state.get("shards", List.class);
        int next = state.get("next", Integer.class);
        List<String> hits = new ArrayList<>();
        if (next == 0) {
            state = state.with("query", result);
        } else {
            for (Object hit : state.get("hits", List.class)) {
                hits.add((String) hit);
            }
            for (Object hit : (List<?>) result) {
                hits.add((String) hit);
            }
        }
        if (next == shards.size()) {
            return NextHop.end(hits);
        }
        return NextHop.call((String) shards.get(next), "search", state.get("query"),
                state.with("next", next + 1).with("hits", hits));
    }
}
