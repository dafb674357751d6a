import Foundation

/// A point on the Earth, for `distanceToLocation:fromLocation:` in predicates and expressions.
///
/// Apple's function takes `CLLocation` objects. CoreLocation does not exist on Linux, and a type
/// named like one of its types would clash in code built for both platforms, so OpenCoreData
/// uses this small value type. Any other value with a latitude and a longitude works too: a
/// ``GeographicLocation`` adopter, or anything key-value coding reads `latitude` and `longitude`
/// (or `coordinate.latitude` and `coordinate.longitude`, as `CLLocation` has) from, such as a
/// dictionary or a managed object with those attributes.
public struct GeographicCoordinate: GeographicLocation, Sendable, Hashable, CustomStringConvertible {
    /// Degrees north of the equator (negative south).
    public var latitude: Double
    /// Degrees east of Greenwich (negative west).
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String { "<\(latitude), \(longitude)>" }

    /// The great-circle distance to `other` in metres (see `GeographicDistance`).
    public func distance(from other: some GeographicLocation) -> Double {
        GeographicDistance.metres(from: (latitude, longitude), to: (other.latitude, other.longitude))
    }
}

/// A value with a latitude and a longitude in degrees, usable as a location in
/// `distanceToLocation:fromLocation:`.
public protocol GeographicLocation {
    var latitude: Double { get }
    var longitude: Double { get }
}

/// Great-circle distances for `distanceToLocation:fromLocation:`.
///
/// The haversine formula on a sphere of radius 6,371,008.8 m (the mean Earth radius of IUGG).
/// Apple does not document the formula behind `CLLocation.distance(from:)`; results agree with it
/// to within about 0.5 %, the difference between a sphere and the real ellipsoid.
enum GeographicDistance {
    static let earthRadius = 6_371_008.8

    static func metres(from a: (Double, Double), to b: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let φ1 = a.0 * radians, φ2 = b.0 * radians
        let Δφ = (b.0 - a.0) * radians, Δλ = (b.1 - a.1) * radians
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// The latitude and longitude of `value`, or nil when it has none.
    static func coordinate(of value: Any?) -> (Double, Double)? {
        guard let value = ValueComparison.unwrap(value), !ValueComparison.isNSNull(value) else { return nil }
        if let location = value as? GeographicLocation { return (location.latitude, location.longitude) }
        for prefix in ["", "coordinate."] {
            let latitude = try? KeyValueAccess.value(forKeyPath: prefix + "latitude", of: value)
            let longitude = try? KeyValueAccess.value(forKeyPath: prefix + "longitude", of: value)
            if let latitude = NumericValue(latitude ?? nil)?.doubleValue, let longitude = NumericValue(longitude ?? nil)?.doubleValue {
                return (latitude, longitude)
            }
        }
        return nil
    }
}
