package com.acme.svc;

import io.rpcc.core.ServiceMethod;
import java.util.List;

/** The payment side of the atomic order chain ({@link Ledger} implements it). */
public interface Payments {
    /** Charges the reservation to its customer's account and records it in the order ledger; refuses a payment over the credit left. */
    @ServiceMethod
    Payment pay(Reservation reservation);

    /** The customer's account. */
    @ServiceMethod
    Account account(String customer);

    /** The order ledger's payments of the customer, by order id. */
    @ServiceMethod
    List<Payment> ledger(String customer);
}
