package io.rpcc.examples.spring.catalog;

import io.rpcc.examples.spring.api.Inventory;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.StockLevel;
import io.rpcc.server.atomic.TxMap;
import io.rpcc.spring.boot.RpccService;
import java.util.Map;

/**
 * The catalog's stock as transactional state: a {@link TxMap} from SKU to {@link StockLevel}, a field of
 * an ordinary {@code @RpccService} bean (a singleton, so the map lives as long as the application). In an
 * atomic chain, {@link #reserve} takes part in the chain's transaction: what it takes from the stock is
 * put back if anything later in the chain fails. It may run more than once for one order (when it waits
 * for a lock another checkout holds), so it changes nothing but the map.
 */
@RpccService
public class Warehouse implements Inventory {
    /** The opening stock. */
    static final Map<String, Integer> OPENING = Map.of("KB-42", 100, "MOUSE-7", 100);

    private final TxMap<String, StockLevel> stock = TxMap.create("catalog-stock");
    private final Catalog catalog;

    /** A warehouse with the {@link #OPENING} stock, pricing with {@code catalog}. */
    public Warehouse(Catalog catalog) {
        this.catalog = catalog;
        OPENING.forEach((sku, n) -> stock.putCommitted(sku, new StockLevel(sku, n)));
    }

    @Override
    public PricedOrder reserve(Order order) {
        PricedOrder priced = catalog.price(order);
        StockLevel level = stock.getForUpdate(order.sku()); // the write lock at once: it changes below
        if (level == null) {
            level = new StockLevel(order.sku(), 0);
        }
        if (level.onHand() < order.quantity()) {
            throw new IllegalStateException("order " + order.id() + " wants " + order.quantity() + " of " + order.sku()
                    + ", the catalog has " + level.onHand());
        }
        stock.put(order.sku(), new StockLevel(order.sku(), level.onHand() - order.quantity()));
        return priced;
    }

    @Override
    public StockLevel stock(String sku) {
        StockLevel level = stock.get(sku);
        return level != null ? level : new StockLevel(sku, 0);
    }
}
