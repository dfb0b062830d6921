package io.rpcc.examples.spring.checkout;

import static io.rpcc.core.StaticRoute.hop;

import io.rpcc.client.ChainCall;
import io.rpcc.core.StaticRoute;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.Shipment;
import io.rpcc.spring.boot.observation.ObservedRpccClient;
import org.springframework.stereotype.Service;

/**
 * Checks an order out with one chain: the catalog prices it, then the catalog's server sends it on to
 * shipping, whose result comes straight back here: client → catalog → shipping → client.
 */
@Service
public class Checkout {
    static final StaticRoute ROUTE = StaticRoute.of(hop("catalog", "price"), hop("shipping", "ship"));

    private final ObservedRpccClient rpcc;

    /** A checkout that starts its chains with {@code rpcc} (observed: one observation per chain). */
    public Checkout(ObservedRpccClient rpcc) {
        this.rpcc = rpcc;
    }

    /** Prices and ships {@code order}. */
    public Shipment checkout(Order order) {
        return rpcc.runChain(ChainCall.along(ROUTE, order)).value(Shipment.class);
    }
}
