package io.rpcc.examples.spring.api;

import io.rpcc.core.ServiceMethod;
import io.rpcc.examples.spring.model.PricedOrder;
import io.rpcc.examples.spring.model.Shipment;
import java.util.List;

/** Shipping's bookings, for atomic checkouts: service functions "book" and "bookings". */
public interface Booking {
    /** Books a carrier for {@code priced} (in an atomic chain only); refuses a country no carrier ships to. */
    @ServiceMethod("book")
    Shipment book(PricedOrder priced);

    /** The shipments booked for orders whose id starts with {@code orderIdPrefix}, by order id. */
    @ServiceMethod("bookings")
    List<Shipment> bookings(String orderIdPrefix);
}
