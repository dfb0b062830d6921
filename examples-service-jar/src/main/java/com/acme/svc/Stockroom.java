package com.acme.svc;

import io.rpcc.core.ChainContext;
import io.rpcc.server.atomic.Transaction;
import io.rpcc.server.atomic.TxMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node's stock, as transactional state of the service jar: a {@link TxMap} from SKU to the jar's own
 * {@link StockLevel}. The node loads the class by name ({@code rpcc.services.classes=com.acme.svc.Stockroom})
 * and makes one instance, so the map lives as long as the node.
 *
 * <p>{@link #takeStock} may run more than once for one hop (when it waits for a lock held by another
 * order, or its chain is restarted after losing a conflict): it only reads and writes the map, and
 * leaves what happens outside rpcc (here a count of orders to pick) to an {@code onCommit} hook.
 */
public class Stockroom implements Warehouse {
    /** The opening stock of every node: plenty of pens and ink, few lamps. */
    public static final Map<String, Integer> OPENING = Map.of("pen", 1_000, "ink", 1_000, "lamp", 8, "desk", 5);

    private final TxMap<String, StockLevel> stock = TxMap.create("acme-stock");
    private final AtomicLong toPick = new AtomicLong();

    /** A stockroom with the {@link #OPENING} stock. */
    public Stockroom() {
        OPENING.forEach((sku, n) -> stock.putCommitted(sku, new StockLevel(sku, n)));
    }

    @Override
    public Reservation takeStock(Order order) {
        long total = 0;
        for (Line line : order.lines()) {
            StockLevel level = stock.getForUpdate(line.sku()); // the write lock at once: it changes below
            if (level == null) {
                level = new StockLevel(line.sku(), 0);
            }
            if (level.onHand() < line.quantity()) {
                throw new IllegalStateException("order " + order.id() + " wants " + line.quantity() + " of '" + line.sku()
                        + "', the stock at " + ChainContext.current().node() + " has " + level.onHand());
            }
            stock.put(line.sku(), new StockLevel(line.sku(), level.onHand() - line.quantity()));
            total += line.cents();
        }
        Transaction.current().onCommit(toPick::incrementAndGet); // once, after the whole chain committed
        return new Reservation(order.id(), order.customer(), total, ChainContext.current().node());
    }

    @Override
    public StockLevel level(String sku) {
        StockLevel level = stock.get(sku);
        return level != null ? level : new StockLevel(sku, 0);
    }

    /** Orders committed at this node so far (counted by the commit hook). */
    public long ordersToPick() {
        return toPick.get();
    }
}
