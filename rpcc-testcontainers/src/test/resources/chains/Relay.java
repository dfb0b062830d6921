import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import java.util.ArrayList;
import java.util.List;

/** Calls "hello" on every node of the state's "route" in turn and ends with the list of greetings. */
public class Relay implements ChainingFunction {
    @SuppressWarnings("unchecked")
    public NextHop apply(ChainState state, Object result) {
        List<String> seen = new ArrayList<>((List<String>) state.get("seen", List.class));
        seen.add((String) result);
        List<String> route = (List<String>) state.get("route", List.class);
        if (route.isEmpty()) {
            return NextHop.end(seen);
        }
        return NextHop.call(route.get(0), "hello", "relay",
                state.with("route", new ArrayList<>(route.subList(1, route.size()))).with("seen", seen));
    }
}
