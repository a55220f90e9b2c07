// Word lists the seed draws tool names, titles and descriptions from, so FTS terms have realistic selectivity:
// a few verbs in most tools, domain nouns in a few percent, cities and brands in a handful of rows.

/** Verbs: [name part, description verb, read-only?]. Earlier entries are drawn more often (Zipf). */
export const VERBS = [
  ["get", "Returns", true],
  ["search", "Searches", true],
  ["list", "Lists", true],
  ["create", "Creates", false],
  ["update", "Updates", false],
  ["add", "Adds", false],
  ["find", "Finds", true],
  ["check", "Checks", true],
  ["delete", "Deletes", false],
  ["book", "Books", false],
  ["track", "Tracks", true],
  ["cancel", "Cancels", false],
  ["compare", "Compares", true],
  ["remove", "Removes", false],
  ["submit", "Submits", false],
  ["schedule", "Schedules", false],
  ["estimate", "Estimates", true],
  ["calculate", "Calculates", true],
  ["subscribe", "Subscribes to", false],
  ["download", "Downloads", true],
  ["upload", "Uploads", false],
  ["share", "Shares", false],
  ["export", "Exports", true],
  ["preview", "Previews", true],
  ["validate", "Validates", true],
  ["reserve", "Reserves", false],
  ["renew", "Renews", false],
  ["rate", "Rates", false],
  ["translate", "Translates", true],
  ["summarize", "Summarizes", true],
];

/** A business domain: its site words, nouns (", "-separated) and description phrases ("; "-separated). */
function domain(key, siteWords, nouns, phrases) {
  return { key, siteWords: siteWords.split(" "), nouns: nouns.split(", "), phrases: phrases.split("; ") };
}

/** Business domains. Each site belongs to one; its tools use the domain's nouns. */
export const DOMAINS = [
  domain(
    "shop",
    "shop store market outlet boutique goods",
    "product, cart, order, wishlist, coupon, review, return, gift card, size guide, stock",
    "by keyword, category and price range; for the signed-in customer; with shipping options; including discounts and taxes; sorted by popularity",
  ),
  domain(
    "travel",
    "travel trips voyages fly tours getaways",
    "flight, hotel, itinerary, booking, seat, boarding pass, visa requirement, car rental, baggage, fare",
    "between two airports; for the given dates and travellers; with flexible dates; including baggage fees; in the traveller's currency",
  ),
  domain(
    "food",
    "eats kitchen bistro delivery recipes grocer",
    "restaurant, recipe, menu, table, delivery, ingredient, meal plan, grocery list, allergen, dish",
    "near the user's location; for a party size and time; filtered by dietary needs; with nutrition facts; from local vendors",
  ),
  domain(
    "finance",
    "bank pay finance capital wallet invest",
    "account, transaction, invoice, payment, budget, exchange rate, loan, mortgage, portfolio, tax form",
    "for the selected period; in any supported currency; with a monthly breakdown; as a downloadable statement; before it is confirmed",
  ),
  domain(
    "health",
    "health clinic care med wellness pharmacy",
    "appointment, doctor, prescription, symptom, insurance claim, lab result, vaccine, pharmacy, workout, sleep log",
    "with an available practitioner; covered by the patient's plan; for the coming week; with dosage instructions; in plain language",
  ),
  domain(
    "realestate",
    "homes realty estates rentals property lettings",
    "listing, property, viewing, rental, floor plan, neighborhood, offer, agent, valuation, lease",
    "within a price range; by number of bedrooms; near schools and transit; with recent sale prices; for the selected area",
  ),
  domain(
    "education",
    "learn academy school courses tutor campus",
    "course, lesson, quiz, assignment, grade, enrollment, certificate, tutor, syllabus, flashcard",
    "for the current semester; at the learner's level; with progress tracking; by subject and difficulty; with answer explanations",
  ),
  domain(
    "media",
    "news stream tv radio podcasts press",
    "article, episode, playlist, podcast, video, headline, comment, newsletter, subtitle, channel",
    "published today; by topic and author; with a short summary; in the reader's language; ordered by relevance",
  ),
  domain(
    "jobs",
    "jobs careers hire talent work recruit",
    "job posting, application, resume, interview, salary, candidate, employer, skill, cover letter, shift",
    "matching the candidate's skills; by location and seniority; with salary ranges; for remote roles; posted this week",
  ),
  domain(
    "events",
    "tickets events live arena festival venue",
    "event, ticket, venue, seat map, concert, performer, schedule, waitlist, pass, lineup",
    "on the selected date; in the user's city; with seat availability; sorted by price; for a group",
  ),
  domain(
    "auto",
    "motors auto cars garage drive dealer",
    "vehicle, test drive, service appointment, part, trade-in, charging station, recall, fuel price, inspection, lease offer",
    "by make, model and year; near the driver; with the vehicle identification number; under a budget; for electric vehicles",
  ),
  domain(
    "weather",
    "weather forecast climate skies meteo radar",
    "forecast, alert, radar, air quality, pollen count, tide, sunrise, temperature, rainfall, uv index",
    "for the next seven days; at a latitude and longitude; hour by hour; with severe weather warnings; for the user's city",
  ),
  domain(
    "dev",
    "dev code cloud deploy api stack",
    "repository, issue, pull request, build, deployment, log, secret, webhook, package, incident",
    "for the given project; with status and author; since the last release; filtered by label; in the selected environment",
  ),
  domain(
    "productivity",
    "docs notes tasks office calendar team",
    "document, task, note, calendar event, meeting, spreadsheet, reminder, folder, contact, project",
    "shared with the team; due this week; by owner and tag; with attendees and location; in the workspace",
  ),
  domain(
    "government",
    "gov city permits services council civic",
    "permit, license, parking ticket, tax return, form, office, voter registration, passport, benefit, complaint",
    "for residents; with required documents; by case number; at the nearest office; with processing times",
  ),
  domain(
    "pets",
    "pets vet paws animal petcare kennel",
    "pet, vet appointment, adoption, grooming, pet food, vaccination record, boarding, walker, breed, microchip",
    "for dogs and cats; near the owner; with available slots; by breed and age; with care instructions",
  ),
  domain(
    "home",
    "home fix repairs pros cleaning movers",
    "quote, contractor, repair, cleaning, moving, plumber, electrician, estimate, warranty, energy audit",
    "for the user's address; with verified reviews; available this weekend; with an itemized price; by service type",
  ),
  domain(
    "sports",
    "sports fit league score club gym",
    "score, fixture, team, player, standing, class, membership, court, training plan, highlight",
    "for the current season; by league and team; with live updates; at the chosen gym; for beginners",
  ),
];

/** A long tail of specific words (Zipf-sampled into descriptions): each appears in few rows. */
export const LONG_TAIL = `
accessibility accommodation acoustic adjustable aerial affordable agenda airport allergy almond alpine
amenity ancestry antique appliance aquarium arcade archive armchair aromatic artisan asparagus astronomy
atlas auction avocado backpack bakery balcony bamboo bandwidth barbecue barista basil battery bazaar
beachfront bicycle biography birthday blueprint bonsai bookshelf botanical boutique brewery bridal
brunch budget buffet bungalow butterfly cabin cafeteria calligraphy campground candle canoe canyon
caramel cardiology carpool cashmere castle catering cathedral ceramic championship charcoal chauffeur
checklist chemistry chess chiropractor chocolate cinema citrus clarinet classroom climbing coastal
cocktail coffee collectible comedy compost concierge coral cottage countryside courier coworking
croissant cruise curriculum cycling dashboard daycare dentistry dermatology desert diesel dinosaur
diploma documentary dormitory downtown drone dumpling earthquake ecology elevator embroidery emerald
encyclopedia espresso estuary fabric falafel farmhouse fashion ferry festival fiction fireplace firmware
fishing fitness florist fondue forestry fountain fragrance freelance fridge frontier furniture galaxy
gallery gardening gelato genealogy geology glacier gluten gourmet graduation granite greenhouse guitar
gymnastics harbor harvest headphones helicopter herbal hiking hockey honey horseback hostel hydrangea
igloo illustration incubator insulation jacuzzi jazz jewelry journalism jungle kayak kindergarten
kombucha lagoon landscaping lantern laptop lavender leather lemonade library lighthouse linen lobster
locksmith loft lottery luggage lullaby macaron magazine mahogany mandarin mango marathon marina mattress
meditation microwave midwife monastery mosaic motorcycle mountain museum mushroom mythology nanny nebula
noodle notary nursery oasis observatory ocean olive opera orchard orchestra origami orthodontist
pancake panorama paragliding parquet pastry pediatric penthouse pepper perfume pharmacy photography
piano picnic pilates planetarium plumbing podcast pottery prairie pretzel puppet quilt quinoa railway
rainforest ramen recycling reef reindeer rooftop rugby saffron sailing salsa sandwich sapphire sauna
saxophone scooter sculpture seafood seminar sewing shampoo sightseeing skateboard skiing skyscraper
snorkeling soccer solar sommelier souvenir spa spinach stadium stationery subway sunflower surfing sushi
symphony tailor tango tapestry tattoo telescope tennis terrace textbook theater thermostat tiramisu
toddler tornado tractor trampoline tram tulip tuxedo typewriter ukulele umbrella upholstery vaccine
vanilla vegan velvet vineyard vintage violin volcano volleyball waffle wallpaper warehouse waterfall
watercolor wedding wetsuit whale wildlife windsurf winery wool workshop yacht yoga yogurt zoo zucchini
`
  .trim()
  .split(/\s+/);

export const CITIES = `
Amsterdam Athens Atlanta Auckland Austin Bangkok Barcelona Berlin Bogota Boston Brisbane Brussels
Budapest Cairo Calgary Chicago Copenhagen Dallas Delhi Denver Dubai Dublin Edinburgh Florence Geneva
Glasgow Hamburg Helsinki Houston Istanbul Jakarta Johannesburg Kyoto Lagos Lima Lisbon London
LosAngeles Lyon Madrid Manila Marseille Melbourne Miami Milan Montreal Mumbai Munich Nairobi Naples
Oslo Ottawa Paris Perth Porto Prague Quito Reykjavik Riga Rome Santiago Seattle Seoul Seville Singapore
Stockholm Sydney Taipei Tallinn Tokyo Toronto Valencia Vancouver Venice Vienna Vilnius Warsaw Zurich
`
  .trim()
  .split(/\s+/)
  .map((c) => c.replace(/([a-z])([A-Z])/g, "$1 $2"));

/** General sentences added to some descriptions. */
export const EXTRAS = [
  "Results are paginated.",
  "Requires the user to be signed in.",
  "Returns at most 50 results.",
  "The user must confirm before anything is charged.",
  "Dates use ISO 8601.",
  "Prices include VAT where it applies.",
  "Use this before placing an order.",
  "Works for guests and members.",
  "Data is refreshed every few minutes.",
  "Call the matching get tool for full details.",
  "Supports English, Spanish and French.",
  "Amounts are in the account's currency.",
];

/** Syllables for made-up brand names: each brand is a rare term (one site, its ten tools). */
export const SYLLABLES = `ka lo vi zen tro mi ra no bel sa qu ix ar do fe lu pa ri on ta ve co ly sor
nex ul gra bo ti ma el dri ko sy fa re um ni pol ve zu ha ne cel mar tes vo yo ga pe xa bri lin`
  .trim()
  .split(/\s+/);

export const TLDS = ["com", "com", "com", "io", "co", "net", "app", "org", "dev", "shop", "travel"];

/** Input-schema properties a tool may take. */
export const PARAMS = {
  query: { type: "string", description: "Free-text search terms" },
  id: { type: "string", description: "Identifier of the item" },
  limit: { type: "integer", minimum: 1, maximum: 100, description: "How many results to return" },
  date: { type: "string", format: "date", description: "Date, ISO 8601" },
  city: { type: "string", description: "City name" },
  quantity: { type: "integer", minimum: 1, description: "Number of items" },
  currency: { type: "string", pattern: "^[A-Z]{3}$", description: "ISO 4217 currency code" },
  sort: { type: "string", enum: ["relevance", "price", "date", "rating"], description: "Sort order" },
  notes: { type: "string", maxLength: 500, description: "Free-text notes" },
  email: { type: "string", format: "email", description: "Contact e-mail" },
};
