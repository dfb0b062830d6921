package io.rpcc.examples.spring.shipping;

import io.rpcc.examples.spring.api.Booking;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.Shipment;
import io.rpcc.server.atomic.TxMap;
import io.rpcc.spring.boot.RpccService;
import java.util.List;
import java.util.Set;

/**
 * Shipping's bookings as transactional state: a {@link TxMap} from order id to the {@link Shipment}
 * booked, in an ordinary {@code @RpccService} bean. {@link #book} refuses the countries no carrier
 * ships to, which in an atomic checkout puts the catalog's stock back.
 */
@RpccService
public class Bookings implements Booking {
    /** Countries no carrier ships to. */
    static final Set<String> NOT_SERVED = Set.of("AQ");

    private final TxMap<String, Shipment> booked = TxMap.create("shipping-bookings");
    private final Shipping shipping;

    /** Bookings with the carriers {@code shipping} picks. */
    public Bookings(Shipping shipping) {
        this.shipping = shipping;
    }

    @Override
    public Shipment book(PricedOrder priced) {
        String country = priced.order().country();
        if (NOT_SERVED.contains(country)) {
            throw new IllegalStateException("no carrier ships to " + country + " (order " + priced.order().id() + ")");
        }
        Shipment shipment = shipping.ship(priced);
        booked.put(shipment.orderId(), shipment);
        return shipment;
    }

    @Override
    public List<Shipment> bookings(String orderIdPrefix) {
        return booked.keys().stream().filter(id -> id.startsWith(orderIdPrefix)).sorted().map(booked::get).toList();
    }
}
