import PaysheetModel

extension Money {
    /// `fen` fen of yuan (CNY), the sandbox's currency.
    static func yuan(_ fen: Int) -> Money { Money(fen, Currency("CNY")!) }
}
