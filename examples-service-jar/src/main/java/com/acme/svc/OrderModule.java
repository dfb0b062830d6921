package com.acme.svc;

import io.rpcc.core.ChainContext;
import io.rpcc.core.TypeRegistry;
import io.rpcc.node.ServiceModule;
import io.rpcc.server.RpccServer;
import java.io.InputStream;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The service jar's {@link ServiceModule} (listed in {@code META-INF/services/io.rpcc.node.ServiceModule}):
 * registers the application's types and the service functions {@code price} (an {@link Order} to a
 * {@link Quote}, with a {@link Progress} partial reply per line) and {@code reserve} (a {@link Quote}
 * and the {@link Order} to a {@link Receipt}), and the streaming service function {@code checksum}
 * (an uploaded data stream to an {@link Upload}). {@link OrderDesk} ({@code order}) and {@link Store}
 * ({@code quote}, {@code hold}) implement service interfaces, as do {@link Stockroom} ({@code takeStock},
 * {@code level}) and {@link Ledger} ({@code pay}, {@code account}, {@code ledger}), which keep transactional
 * state for atomic chains; the node loads them by name ({@code rpcc.services.classes}).
 */
public final class OrderModule implements ServiceModule {
    /** The application's types, in one place for the nodes (this module) and the clients. */
    public static final List<Class<?>> TYPES = List.of(Line.class, Order.class, Quote.class, Progress.class, Receipt.class,
            CheckoutPlan.class, Upload.class, StockLevel.class, Reservation.class, Payment.class, Account.class);

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
        server.streamingService("checksum", (params, data) -> checksum((String) params, data));
    }

    /** Reads {@code data} to its end as it arrives, never holding it whole: its length, lines and CRC-32. */
    static Upload checksum(String name, InputStream data) throws java.io.IOException {
        CRC32 crc = new CRC32();
        long bytes = 0;
        long lines = 0;
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = data.read(buffer)) >= 0; ) {
            crc.update(buffer, 0, n);
            bytes += n;
            for (int i = 0; i < n; i++) {
                if (buffer[i] == '\n') {
                    lines++;
                }
            }
        }
        return new Upload(name, bytes, lines, crc.getValue(), ChainContext.current().node());
    }
}
