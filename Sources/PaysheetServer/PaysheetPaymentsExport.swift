// The payment core's records and machines are part of the server's public API (its orders and
// payments are these types): a user of PaysheetServer sees them without importing the core.
@_exported import PaysheetPayments
