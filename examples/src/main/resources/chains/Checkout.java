import io.rpcc.core.*;
import io.rpcc.examples.quickstart.Order;
import io.rpcc.examples.quickstart.Quote;

/**
 * The checkout chain's logic, run at each server after its service function:
 * gateway.region -> inventory-<region>.reserve -> pricing.quote -> end.
 * The second hop depends on the first service function's result.
 */
public class Checkout implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        Order order = state.get("order", Order.class);
        String step = state.get("step", String.class);
        VirtualConsole console = ChainContext.current().console();
        switch (step) {
            case "region": {
                String inventory = "inventory-" + result;
                console.println("order " + order.id() + " ships from region " + result + ", asking " + inventory);
                return NextHop.call(inventory, "reserve", order, state.with("step", "reserve"));
            }
            case "reserve": {
                String warehouse = (String) result;
                console.println("reserved " + order.quantity() + " x " + order.sku() + " at " + warehouse);
                return NextHop.call("pricing", "quote", order,
                        state.with("step", "quote").with("warehouse", warehouse));
            }
            default: {
                long cents = (Long) result;
                return NextHop.end(new Quote(order.id(), state.get("warehouse", String.class), cents));
            }
        }
    }
}
