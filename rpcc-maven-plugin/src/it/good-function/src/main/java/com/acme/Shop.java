package com.acme;

/** Not a chaining function: the plugin leaves it alone. */
public abstract class Shop {
    abstract void open();
}
