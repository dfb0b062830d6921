import com.acme.svc.Order;
import com.acme.svc.Progress;
import com.acme.svc.Quote;
import com.acme.svc.Receipt;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import java.util.List;

/**
 * A checkout across three service functions of the service jar, with the application's own types:
 * "order" (an Order) -> "price" at the state's "pricing" node (a Quote) -> "reserve" at its "stock"
 * node (a Receipt), the chain's result. After each hop it sends a Progress partial reply.
 */
public class Checkout implements ChainingFunction {
    public NextHop apply(ChainState state, Object result) {
        ChainContext ctx = ChainContext.current();
        if (result instanceof Order order) {
            ctx.preturn(new Progress(order.id(), "loaded " + order.lines().size() + " lines for " + order.customer(), ctx.node()));
            return NextHop.call(state.get("pricing", String.class), "price", order, state.with("order", order));
        }
        if (result instanceof Quote quote) {
            Order order = state.get("order", Order.class);
            ctx.preturn(new Progress(quote.orderId(), "quoted " + quote.totalCents() + " cents", ctx.node()));
            return NextHop.call(state.get("stock", String.class), "reserve", List.<Object>of(quote, order), state);
        }
        Receipt receipt = (Receipt) result;
        ctx.preturn(new Progress(receipt.orderId(), "reserved", ctx.node()));
        return NextHop.end(receipt);
    }
}
