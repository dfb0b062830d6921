package io.rpcc.examples.spring.checkout;

import com.example.checkout.Checkout;
import com.example.checkout.SequentialCheckout;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.client.ReplySet;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticRoute;
import io.rpcc.examples.spring.model.CatalogueImport;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.Quote;
import io.rpcc.examples.spring.model.Shipment;
import io.rpcc.examples.spring.model.StockLevel;
import java.io.InputStream;
import java.util.List;
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
     * The same chain written as straight-line code ({@link SequentialCheckout}): the same hops, replies
     * and result. Its source is packaged in the application's jar like {@link Checkout}'s.
     */
    static ChainCall sequentialChain(Order order) {
        return ChainCall.sequential(SequentialCheckout.class, order);
    }

    /** The chain of {@code style}: {@code "sequential"} or {@code "continuation"}. */
    static ChainCall chain(String style, Order order) {
        return switch (style) {
            case "sequential" -> sequentialChain(order);
            case "continuation" -> chain(order);
            default -> throw new IllegalArgumentException("no checkout style " + style
                    + ": use sequential or continuation");
        };
    }

    /**
     * The express route: the catalog's {@code price}, then shipping's {@code ship} on what it returns, as a
     * static route. No chaining function of the application's runs: each server reads the next hop from
     * the route in the chain's state (rpcc's own step, neither compiled nor sandboxed), and there are no
     * partial replies.
     */
    static final StaticRoute EXPRESS = StaticRoute.of(StaticRoute.hop("catalog", "price"),
            StaticRoute.hop("shipping", "ship"));

    /**
     * The atomic checkout's route: the catalog's {@code reserve} (prices the order and takes it from the
     * stock), then shipping's {@code book} (books a carrier). As an atomic chain it is one transaction:
     * both happen or neither.
     */
    static final StaticRoute ATOMIC = StaticRoute.of(StaticRoute.hop("catalog", "reserve"),
            StaticRoute.hop("shipping", "book"));

    /**
     * Checks {@code order} out in one transaction across the catalog and shipping: the stock is taken and
     * the shipment booked, or, if either refuses, neither.
     *
     * @throws io.rpcc.core.TransactionAbortedException if it was refused (its message and {@code host()} say where and why)
     */
    public Shipment atomicCheckout(Order order) {
        return rpcc.runChain(ChainCall.along(ATOMIC, order).atomic()).value(Shipment.class);
    }

    /**
     * The catalog's stock of {@code sku}, read in an atomic chain: it waits for checkouts that hold the
     * SKU's lock, so it sees a checkout whose commit is still on its way to the catalog.
     */
    public StockLevel stock(String sku) {
        return rpcc.runChain(ChainCall.to("catalog", "stock").params(sku).atomic()).value(StockLevel.class);
    }

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

    /** As {@link #start}, with the chain written sequentially ({@link SequentialCheckout}). */
    public ReplySet<Quote> startSequential(Order order) {
        return rpcc.startChainWithReplies(sequentialChain(order), Quote.class);
    }

    /**
     * What a checkout of {@code order} in {@code style} ({@code sequential} or {@code continuation})
     * gives: its shipment, the servers it crossed and its partial replies.
     */
    public CheckoutOutcome outcome(String style, Order order) {
        ChainResult result = rpcc.runChain(chain(style, order));
        return new CheckoutOutcome(style, result.value(Shipment.class), result.path(),
                result.replies().stream().map(Quote.class::cast).toList());
    }

    /**
     * Sends catalogue file {@code name} to the catalog as a data stream, read from {@code data} while it
     * arrives here and while the catalog reads it (neither holds it whole); closes {@code data}.
     */
    public CatalogueImport importCatalogue(String name, InputStream data) {
        return rpcc.runChain(ChainCall.to("catalog", "importCatalogue").params(name).stream(data))
                .value(CatalogueImport.class);
    }

    /**
     * A checkout's outcome, as JSON.
     *
     * @param style how its chain was written: {@code sequential} or {@code continuation}
     * @param shipment its result
     * @param path the servers its chain crossed
     * @param quotes its partial replies, in arrival order
     */
    public record CheckoutOutcome(String style, Shipment shipment, List<String> path, List<Quote> quotes) {
    }
}
