/// A way of shipping the order (`ApplePayShippingMethod`).
public struct ApplePayShippingMethod: Codable, Sendable, Hashable {
    /// The method's name on the sheet.
    public var label: String
    /// A short description (e.g. "Arrives in 5 to 7 days").
    public var detail: String
    /// The cost, a decimal string.
    public var amount: String
    /// The merchant's identifier of the method (not shown to the user).
    public var identifier: String
    /// The expected delivery window (API version 12+).
    public var dateComponentsRange: ApplePayDateComponentsRange?
    /// Whether this method is selected when the sheet opens (API version 13+).
    public var selected: Bool?

    /// A shipping method.
    public init(
        label: String,
        detail: String,
        amount: String,
        identifier: String,
        dateComponentsRange: ApplePayDateComponentsRange? = nil,
        selected: Bool? = nil
    ) {
        self.label = label
        self.detail = detail
        self.amount = amount
        self.identifier = identifier
        self.dateComponentsRange = dateComponentsRange
        self.selected = selected
    }
}

/// A range of dates given as calendar components (`ApplePayDateComponentsRange`).
public struct ApplePayDateComponentsRange: Codable, Sendable, Hashable {
    /// The first day of the range.
    public var startDateComponents: ApplePayDateComponents
    /// The last day of the range.
    public var endDateComponents: ApplePayDateComponents
    /// A range.
    public init(startDateComponents: ApplePayDateComponents, endDateComponents: ApplePayDateComponents) {
        self.startDateComponents = startDateComponents
        self.endDateComponents = endDateComponents
    }
}

/// Gregorian calendar components (`ApplePayDateComponents`); months are 1-based.
public struct ApplePayDateComponents: Codable, Sendable, Hashable {
    /// Years.
    public var years: Int?
    /// Months (1-based).
    public var months: Int?
    /// Days.
    public var days: Int?
    /// Hours.
    public var hours: Int?
    /// Components.
    public init(years: Int? = nil, months: Int? = nil, days: Int? = nil, hours: Int? = nil) {
        self.years = years
        self.months = months
        self.days = days
        self.hours = hours
    }
}
