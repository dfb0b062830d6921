import io.rpcc.core.*;

/**
 * The chaining function of SubChainStressTest's sub-chains: calls "work" at the servers listed in
 * state "servers" (comma-separated, may be empty) with the value that comes back, then ends the
 * sub-chain with state "ret" (the creating hop's own value).
 */
public class StressSub implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String servers = state.get("servers", String.class);
        if (servers.isEmpty()) {
            return NextHop.end(state.get("ret"));
        }
        int comma = servers.indexOf(',');
        String next = comma < 0 ? servers : servers.substring(0, comma);
        String rest = comma < 0 ? "" : servers.substring(comma + 1);
        return NextHop.call(next, "work", result, state.with("servers", rest));
    }
}
