package io.rpcc.examples.spring.checkout;

import com.example.checkout.Checkout;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.ReplySet;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.Quote;
import io.rpcc.examples.spring.model.Shipment;
import org.springframework.stereotype.Service;

/**
 * Checks an order out with one chain: the catalog prices it, then the {@link Checkout} chaining
 * function, at the catalog's server, sends it on to shipping, whose result comes straight back here:
 * client → catalog → shipping → client. On the way, each server sends a {@link Quote} back as a
 * partial reply.
 */
@Service
public class CheckoutService {
    /** The chaining function, its source shipped in the application's jar (META-INF/rpcc/functions/). */
    static final ChainingFunctionSource CHECKOUT = ChainingFunctionSource.of(Checkout.class);

    private final RpccClient rpcc;

    /** A checkout that starts its chains with {@code rpcc} (observed: one observation per chain). */
    public CheckoutService(RpccClient rpcc) {
        this.rpcc = rpcc;
    }

    /** The chain that checks {@code order} out. */
    static ChainCall chain(Order order) {
        return ChainCall.to("catalog", "price").params(order).chainingFunction(CHECKOUT);
    }

    /**
     * The express route: the catalog's {@code price}, then shipping's {@code ship} on what it returns, as a
     * static route. No chaining function of the application's runs: each server reads the next hop from
     * the route in the chain's state (rpcc's own step, neither compiled nor sandboxed), and there are no
     * partial replies.
     */
    static final StaticRoute EXPRESS = StaticRoute.of(StaticRoute.hop("catalog", "price"),
            StaticRoute.hop("shipping", "ship"));

    /** Prices and ships {@code order} along the {@link #EXPRESS} route. */
    public Shipment express(Order order) {
        return rpcc.runChain(ChainCall.along(EXPRESS, order)).value(Shipment.class);
    }

    /** Prices and ships {@code order} (its progress replies are in the result's {@code replies()}, unused here). */
    public Shipment checkout(Order order) {
        return rpcc.runChain(chain(order)).value(Shipment.class);
    }

    /** Starts checking {@code order} out: the {@link Quote}s as they come, then the {@link Shipment} as the result. */
    public ReplySet<Quote> start(Order order) {
        return rpcc.startChainWithReplies(chain(order), Quote.class);
    }
}
