import io.rpcc.core.*;

/**
 * The test chain: gateway.region decides the inventory server from the order's country, the
 * inventory's stock goes to pricing, pricing's quote ends the chain.
 */
public class Route implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        String step = state.get("step", String.class);
        ChainContext.current().console().println("step " + step + " got " + result);
        switch (step) {
            case "region": {
                String server = "inventory-" + result;
                return NextHop.call(server, "stock", state.get("sku"), state.with("step", "stock"));
            }
            case "stock": {
                int stock = (Integer) result;
                return NextHop.call("pricing", "quote", state.get("sku") + ":" + stock, state.with("step", "quote"));
            }
            default:
                return NextHop.end("quote=" + result);
        }
    }
}
