package com.acme.svc;

import io.rpcc.core.ChainContext;
import io.rpcc.core.TypeRegistry;
import io.rpcc.node.ServiceModule;
import io.rpcc.server.RpccServer;
import java.util.List;

/**
 * The service jar's {@link ServiceModule} (listed in {@code META-INF/services/io.rpcc.node.ServiceModule}):
 * registers the application's types and the service functions {@code price} (an {@link Order} to a
 * {@link Quote}, with a {@link Progress} partial reply per line) and {@code reserve} (a {@link Quote}
 * and the {@link Order} to a {@link Receipt}). {@link OrderDesk}'s {@code order} is a
 * {@code @ServiceMethod} class the node loads by name ({@code rpcc.services.classes}).
 */
public final class OrderModule implements ServiceModule {
    /** The application's types, in one place for the nodes (this module) and the clients. */
    public static final List<Class<?>> TYPES = List.of(Line.class, Order.class, Quote.class, Progress.class, Receipt.class);

    /** Registers {@link #TYPES} (each is {@code @RpccType}). */
    public static TypeRegistry.Builder registerTypesOn(TypeRegistry.Builder types) {
        TYPES.forEach(types::registerAnnotated);
        return types;
    }

    @Override
    public void registerTypes(TypeRegistry.Builder types) {
        registerTypesOn(types);
    }

    @Override
    public void configure(RpccServer.Builder server) {
        server.service("price", params -> {
            Order order = (Order) params;
            ChainContext ctx = ChainContext.current();
            long total = 0;
            for (Line line : order.lines()) {
                total += line.cents();
                ctx.preturn(new Progress(order.id(), "priced " + line.sku(), ctx.node()));
            }
            return new Quote(order.id(), total, ctx.node());
        });
        server.service("reserve", params -> {
            List<?> quoteAndOrder = (List<?>) params;
            Quote quote = (Quote) quoteAndOrder.get(0);
            Order order = (Order) quoteAndOrder.get(1);
            return new Receipt(order.id(), order.customer(), quote.totalCents(), quote.pricedAt(), ChainContext.current().node());
        });
    }
}
