"""Static vocabulary (names, places, industries, templates) for the sandbox's synthetic data."""

from __future__ import annotations

from typing import NamedTuple


class Industry(NamedTuple):
    """An industry with a numeric-string id and the specialties companies in it list."""

    id: str
    name: str
    specialties: tuple[str, ...]


class Place(NamedTuple):
    """A node of the place hierarchy; ``parent`` is the key of the containing place."""

    key: str
    name: str
    type: str  # "COUNTRY" | "ADMIN_DIVISION" | "METRO_AREA" | "CITY"
    parent: str | None


class School(NamedTuple):
    """A school; ``place`` is the key of a CITY in PLACES."""

    name: str
    place: str


class Certification(NamedTuple):
    """A professional certification and the body that issues it."""

    name: str
    issuer: str


# ---------------------------------------------------------------------------------------------
# People
# ---------------------------------------------------------------------------------------------

# fmt: off
FIRST_NAMES: tuple[str, ...] = (
    "Aarav", "Abebe", "Adaeze", "Adrian", "Aiko", "Aisha", "Alejandro", "Alexei", "Amara", "Amir",
    "Ana", "Anders", "Andrea", "Anika", "Arjun", "Astrid", "Ayumi", "Beatriz", "Benjamin", "Bilal",
    "Bongani", "Camila", "Carlos", "Chen", "Chiara", "Chidi", "Chloe", "Daniel", "Daria", "David",
    "Deepika", "Diego", "Dmitri", "Elena", "Elif", "Eliza", "Emeka", "Emil", "Emma", "Erik",
    "Esther", "Fatima", "Felix", "Fernanda", "Finn", "Gabriel", "Grace", "Hana", "Hannah", "Hao",
    "Haruto", "Hassan", "Ingrid", "Isabel", "Ivan", "Jamal", "James", "Javier", "Jia", "Jin",
    "Joao", "Jonas", "Julia", "Kai", "Kavya", "Kenji", "Kofi", "Lars", "Layla", "Leila",
    "Leon", "Liam", "Lina", "Lucas", "Lucia", "Mai", "Malik", "Marco", "Maria", "Mariam",
    "Mateo", "Maya", "Mehmet", "Mei", "Mia", "Miguel", "Min", "Mohammed", "Nadia", "Naledi",
    "Naveen", "Nia", "Nikhil", "Nina", "Noah", "Nour", "Olga", "Olivia", "Omar", "Oscar",
    "Pablo", "Paolo", "Priya", "Rafael", "Rahul", "Ravi", "Rin", "Rohan", "Rosa", "Ruth",
    "Sakura", "Samuel", "Sana", "Santiago", "Sara", "Sebastian", "Seo", "Sipho", "Sofia", "Sophie",
    "Soren", "Sunita", "Tariq", "Tatiana", "Thabo", "Theo", "Tomas", "Tunde", "Valentina", "Vikram",
    "Wei", "Xavier", "Xin", "Yara", "Yasmin", "Yuki", "Yusuf", "Zainab", "Zara", "Zhen",
    "Ayesha", "Bruno", "Chioma", "Dario", "Freya", "Ikaika", "Keanu", "Lerato", "Mateus", "Seun",
)

LAST_NAMES: tuple[str, ...] = (
    "Abara", "Adeyemi", "Agarwal", "Ahmed", "Alvarez", "Andersson", "Bakker", "Banerjee", "Barbosa",
    "Becker", "Bianchi", "Bjork", "Brennan", "Brown", "Castillo", "Chatterjee", "Chen", "Choi",
    "Costa", "Cruz", "Dahl", "Dasgupta", "Dubois", "Dumont", "Eriksson", "Esposito", "Farouk",
    "Fernandes", "Ferreira", "Fischer", "Fitzgerald", "Fontaine", "Garcia", "Gomez", "Gonzalez",
    "Gupta", "Haddad", "Hansen", "Hashimoto", "Hernandez", "Hoffmann", "Horvath", "Huang", "Hughes",
    "Ibrahim", "Iyer", "Jansen", "Jensen", "Johansson", "Johnson", "Kaminski", "Kang", "Kapoor",
    "Kariuki", "Kato", "Kaur", "Khan", "Kim", "Kovac", "Kowalski", "Kumar", "Laurent", "Lee",
    "Lindqvist", "Lopez", "Mahlangu", "Mansour", "Martin", "Martinez", "Mehta", "Mendes", "Meyer",
    "Moreau", "Moreno", "Mueller", "Murphy", "Mwangi", "Nakamura", "Nair", "Nguyen", "Nielsen",
    "Novak", "Nowak", "Nunez", "Obi", "Odhiambo", "Okafor", "Okonkwo", "Oliveira", "Olsen",
    "Ortiz", "Osei", "Park", "Patel", "Pereira", "Petrov", "Popescu", "Quinn", "Rahman", "Ramirez",
    "Rao", "Reddy", "Reyes", "Ricci", "Rivera", "Rodriguez", "Romano", "Rossi", "Russo", "Saito",
    "Sanchez", "Santos", "Sato", "Schmidt", "Schneider", "Sharma", "Silva", "Singh", "Smith",
    "Sokolov", "Suzuki", "Svensson", "Takahashi", "Tanaka", "Taylor", "Thompson", "Torres",
    "Tran", "Van", "Varga", "Vasquez", "Verma", "Visser", "Volkov", "Wagner", "Walker", "Wang",
    "Watanabe", "Weber", "Williams", "Wilson", "Wong", "Wu", "Yamamoto", "Yang", "Yilmaz",
    "Yoshida", "Zhang", "Zhou", "Zielinski", "Zuniga", "Asante", "Boateng", "Demir",
)
# fmt: on

# ---------------------------------------------------------------------------------------------
# Companies
# ---------------------------------------------------------------------------------------------

# fmt: off
COMPANY_WORDS_A: tuple[str, ...] = (
    "Velorix", "Brightwell", "Northpeak", "Quantifi", "Arcwise", "Lumora", "Corvanta", "Tessaly",
    "Halvorn", "Ostrova", "Zentrix", "Altavo", "Bluefen", "Cindral", "Drovia", "Emberly",
    "Fathomix", "Glintra", "Harbrook", "Isovant", "Jadeport", "Kelvra", "Loomwise", "Mirovia",
    "Nexari", "Ondrel", "Pravana", "Quillon", "Rivenna", "Sorvida", "Tarnwell", "Ultrava",
    "Vantiq", "Wrenfield", "Xylora", "Yarrowby", "Zephra", "Amberlyn", "Bexton", "Coravel",
    "Davrix", "Elmstead", "Ferrovo", "Greymoor", "Heliant", "Ironvale", "Juniva", "Kinsora",
    "Lathmere", "Meridane", "Novastra", "Orbelle", "Pinewhistle", "Quorvia", "Redlark", "Silverbay",
    "Thornick", "Umbrelle", "Verdanta", "Westmarch", "Yonderly", "Zolvan", "Auraline", "Brisklow",
    "Clearbrook", "Driftwell", "Evenbrook", "Foxhollow", "Goldmere", "Hollowell", "Indigra",
    "Jetstone", "Keystride", "Lakewise", "Mossgrove", "Nimbral", "Oaklume", "Peregrin", "Quintora",
    "Ridgelume", "Stellaro", "Tidewell", "Upvance", "Virello", "Wyndra", "Xanthor", "Zelvia",
)

COMPANY_WORDS_B: tuple[str, ...] = (
    "Systems", "Labs", "Analytics", "Health", "Logistics", "Partners", "Robotics", "Bio",
    "Capital", "Foods", "Energy", "Software", "Technologies", "Networks", "Dynamics",
    "Therapeutics", "Security", "Media", "Consulting", "Ventures", "Group", "Solutions",
    "Industries", "Materials", "Mobility", "Payments", "Cloud", "Studios", "Works", "Foundry",
    "Insights", "Aerospace", "Learning",
)

INDUSTRIES: tuple[Industry, ...] = (
    Industry("4", "Software Development", (
        "SaaS", "Cloud Platforms", "Developer Tools", "API Design", "DevOps", "Mobile Apps",
        "Open Source", "Enterprise Software")),
    Industry("96", "IT Services and IT Consulting", (
        "Managed Services", "Cloud Migration", "Systems Integration", "IT Strategy",
        "Digital Transformation", "Help Desk Support", "Infrastructure Management")),
    Industry("6", "Technology, Information and Internet", (
        "Online Marketplaces", "Search", "Consumer Apps", "Social Platforms", "Ad Tech",
        "Data Platforms", "Machine Learning")),
    Industry("43", "Financial Services", (
        "Payments", "Wealth Management", "Lending", "Risk Management", "Fintech",
        "Regulatory Compliance", "Treasury Services")),
    Industry("41", "Banking", (
        "Retail Banking", "Commercial Banking", "Mortgages", "Digital Banking", "Credit Cards",
        "Corporate Finance")),
    Industry("42", "Insurance", (
        "Property and Casualty", "Life Insurance", "Claims Automation", "Underwriting",
        "Insurtech", "Reinsurance")),
    Industry("106", "Venture Capital and Private Equity Principals", (
        "Seed Investing", "Growth Equity", "Buyouts", "Portfolio Support", "Fund Management",
        "Due Diligence")),
    Industry("14", "Hospitals and Health Care", (
        "Telehealth", "Primary Care", "Patient Experience", "Clinical Operations",
        "Population Health", "Care Coordination", "Electronic Health Records")),
    Industry("12", "Biotechnology Research", (
        "Genomics", "Drug Discovery", "Cell Therapy", "Bioinformatics", "Clinical Trials",
        "Protein Engineering", "Diagnostics")),
    Industry("15", "Pharmaceutical Manufacturing", (
        "Generics", "Oncology", "Vaccines", "Regulatory Affairs", "Quality Assurance",
        "Contract Manufacturing")),
    Industry("17", "Medical Equipment Manufacturing", (
        "Medical Devices", "Imaging", "Wearables", "Surgical Robotics", "Diagnostics",
        "Remote Monitoring")),
    Industry("80", "Advertising Services", (
        "Brand Strategy", "Performance Marketing", "Creative Production", "Media Buying",
        "Influencer Marketing", "Content Marketing")),
    Industry("27", "Retail", (
        "E-commerce", "Omnichannel Retail", "Merchandising", "Supply Chain", "Loyalty Programs",
        "Store Operations", "Private Label")),
    Industry("116", "Transportation, Logistics, Supply Chain and Storage", (
        "Freight Forwarding", "Last-Mile Delivery", "Warehousing", "Fleet Management",
        "Route Optimization", "Cold Chain")),
    Industry("53", "Motor Vehicle Manufacturing", (
        "Electric Vehicles", "Battery Systems", "Autonomous Driving", "Powertrain",
        "Connected Cars", "Lean Manufacturing")),
    Industry("52", "Aviation and Aerospace Component Manufacturing", (
        "Satellites", "Avionics", "Drones", "Propulsion", "Composite Materials",
        "Flight Software")),
    Industry("44", "Real Estate", (
        "Property Management", "Commercial Real Estate", "PropTech", "Residential Sales",
        "Facilities Management", "Leasing")),
    Industry("68", "Higher Education", (
        "Online Learning", "Research", "Executive Education", "Student Success",
        "Continuing Education", "Academic Partnerships")),
    Industry("132", "E-Learning Providers", (
        "Online Courses", "Corporate Training", "Learning Platforms", "Upskilling",
        "Certification Programs", "Adaptive Learning")),
    Industry("104", "Staffing and Recruiting", (
        "Executive Search", "Technical Recruiting", "Contract Staffing", "RPO",
        "Talent Acquisition", "Employer Branding")),
    Industry("11", "Business Consulting and Services", (
        "Strategy", "Operations Improvement", "Change Management", "Market Research",
        "Mergers and Acquisitions", "Performance Improvement", "Organizational Design")),
    Industry("9", "Law Practice", (
        "Corporate Law", "Intellectual Property", "Litigation", "Employment Law",
        "Data Privacy", "Commercial Contracts")),
    Industry("47", "Accounting", (
        "Audit", "Tax Advisory", "Bookkeeping", "Forensic Accounting", "Payroll",
        "Financial Reporting")),
    Industry("23", "Food and Beverage Manufacturing", (
        "Plant-Based Foods", "Beverages", "Food Safety", "Packaging", "Snacks",
        "Sustainable Sourcing")),
    Industry("34", "Food and Beverage Services", (
        "Restaurants", "Catering", "Food Delivery", "Hospitality", "Menu Development",
        "Franchise Operations")),
    Industry("144", "Renewable Energy Power Generation", (
        "Solar", "Wind", "Energy Storage", "Grid Integration", "Power Purchase Agreements",
        "Green Hydrogen", "Project Development")),
    Industry("57", "Oil and Gas", (
        "Exploration", "Pipelines", "Refining", "Carbon Capture", "Asset Integrity",
        "Energy Trading")),
    Industry("8", "Telecommunications", (
        "5G", "Fiber Networks", "Network Operations", "IoT Connectivity", "Unified Communications",
        "Satellite Communications")),
    Industry("3", "Computer Hardware Manufacturing", (
        "Semiconductors", "Embedded Systems", "Servers", "Edge Computing", "PCB Design",
        "Consumer Electronics")),
    Industry("118", "Computer and Network Security", (
        "Threat Intelligence", "Identity and Access Management", "Endpoint Security",
        "Penetration Testing", "Incident Response", "Zero Trust", "Security Operations")),
    Industry("31", "Hospitality", (
        "Hotels", "Revenue Management", "Guest Experience", "Events", "Boutique Travel",
        "Hospitality Technology")),
    Industry("137", "Human Resources Services", (
        "HR Outsourcing", "Benefits Administration", "People Analytics", "Compensation",
        "Learning and Development", "Workforce Planning")),
)
# fmt: on

# ---------------------------------------------------------------------------------------------
# Places: every parent appears before its children.
# ---------------------------------------------------------------------------------------------

_CO = "COUNTRY"
_AD = "ADMIN_DIVISION"
_MA = "METRO_AREA"
_CI = "CITY"

# fmt: off
PLACES: tuple[Place, ...] = (
    # Countries
    Place("us", "United States", _CO, None),
    Place("gb", "United Kingdom", _CO, None),
    Place("de", "Germany", _CO, None),
    Place("fr", "France", _CO, None),
    Place("nl", "Netherlands", _CO, None),
    Place("es", "Spain", _CO, None),
    Place("it", "Italy", _CO, None),
    Place("se", "Sweden", _CO, None),
    Place("ie", "Ireland", _CO, None),
    Place("ca", "Canada", _CO, None),
    Place("in", "India", _CO, None),
    Place("sg", "Singapore", _CO, None),
    Place("au", "Australia", _CO, None),
    Place("br", "Brazil", _CO, None),
    Place("jp", "Japan", _CO, None),
    # Admin divisions
    Place("us-ca", "California, United States", _AD, "us"),
    Place("us-ny", "New York, United States", _AD, "us"),
    Place("us-wa", "Washington, United States", _AD, "us"),
    Place("us-tx", "Texas, United States", _AD, "us"),
    Place("us-ma", "Massachusetts, United States", _AD, "us"),
    Place("us-il", "Illinois, United States", _AD, "us"),
    Place("us-co", "Colorado, United States", _AD, "us"),
    Place("us-ga", "Georgia, United States", _AD, "us"),
    Place("gb-eng", "England, United Kingdom", _AD, "gb"),
    Place("gb-sct", "Scotland, United Kingdom", _AD, "gb"),
    Place("de-by", "Bavaria, Germany", _AD, "de"),
    Place("de-be", "Berlin, Germany", _AD, "de"),
    Place("de-hh", "Hamburg, Germany", _AD, "de"),
    Place("de-he", "Hesse, Germany", _AD, "de"),
    Place("fr-idf", "Ile-de-France, France", _AD, "fr"),
    Place("fr-ara", "Auvergne-Rhone-Alpes, France", _AD, "fr"),
    Place("fr-occ", "Occitanie, France", _AD, "fr"),
    Place("nl-nh", "North Holland, Netherlands", _AD, "nl"),
    Place("nl-zh", "South Holland, Netherlands", _AD, "nl"),
    Place("nl-nb", "North Brabant, Netherlands", _AD, "nl"),
    Place("es-md", "Community of Madrid, Spain", _AD, "es"),
    Place("es-ct", "Catalonia, Spain", _AD, "es"),
    Place("it-lom", "Lombardy, Italy", _AD, "it"),
    Place("it-laz", "Lazio, Italy", _AD, "it"),
    Place("se-ab", "Stockholm County, Sweden", _AD, "se"),
    Place("se-o", "Vastra Gotaland County, Sweden", _AD, "se"),
    Place("ie-d", "County Dublin, Ireland", _AD, "ie"),
    Place("ie-co", "County Cork, Ireland", _AD, "ie"),
    Place("ca-on", "Ontario, Canada", _AD, "ca"),
    Place("ca-bc", "British Columbia, Canada", _AD, "ca"),
    Place("ca-qc", "Quebec, Canada", _AD, "ca"),
    Place("in-ka", "Karnataka, India", _AD, "in"),
    Place("in-mh", "Maharashtra, India", _AD, "in"),
    Place("in-dl", "Delhi, India", _AD, "in"),
    Place("sg-cs", "Central Singapore, Singapore", _AD, "sg"),
    Place("au-nsw", "New South Wales, Australia", _AD, "au"),
    Place("au-vic", "Victoria, Australia", _AD, "au"),
    Place("au-qld", "Queensland, Australia", _AD, "au"),
    Place("br-sp", "Sao Paulo, Brazil", _AD, "br"),
    Place("br-rj", "Rio de Janeiro, Brazil", _AD, "br"),
    Place("jp-13", "Tokyo, Japan", _AD, "jp"),
    Place("jp-27", "Osaka, Japan", _AD, "jp"),
    # Metro areas
    Place("sf-bay-area", "San Francisco Bay Area", _MA, "us-ca"),
    Place("greater-la", "Los Angeles Metropolitan Area", _MA, "us-ca"),
    Place("nyc-metro", "New York City Metropolitan Area", _MA, "us-ny"),
    Place("greater-seattle", "Greater Seattle Area", _MA, "us-wa"),
    Place("dfw-metroplex", "Dallas-Fort Worth Metroplex", _MA, "us-tx"),
    Place("greater-boston", "Greater Boston", _MA, "us-ma"),
    Place("greater-chicago", "Greater Chicago Area", _MA, "us-il"),
    Place("greater-london", "Greater London", _MA, "gb-eng"),
    Place("greater-munich", "Greater Munich Metropolitan Area", _MA, "de-by"),
    Place("greater-paris", "Greater Paris Metropolitan Region", _MA, "fr-idf"),
    Place("greater-toronto", "Greater Toronto Area", _MA, "ca-on"),
    Place("greater-bengaluru", "Greater Bengaluru Area", _MA, "in-ka"),
    Place("greater-sydney", "Greater Sydney Area", _MA, "au-nsw"),
    Place("greater-tokyo", "Greater Tokyo Area", _MA, "jp-13"),
    # Cities: United States
    Place("san-francisco", "San Francisco, California, United States", _CI, "sf-bay-area"),
    Place("san-jose", "San Jose, California, United States", _CI, "sf-bay-area"),
    Place("palo-alto", "Palo Alto, California, United States", _CI, "sf-bay-area"),
    Place("oakland", "Oakland, California, United States", _CI, "sf-bay-area"),
    Place("berkeley", "Berkeley, California, United States", _CI, "sf-bay-area"),
    Place("mountain-view", "Mountain View, California, United States", _CI, "sf-bay-area"),
    Place("los-angeles", "Los Angeles, California, United States", _CI, "greater-la"),
    Place("santa-monica", "Santa Monica, California, United States", _CI, "greater-la"),
    Place("san-diego", "San Diego, California, United States", _CI, "us-ca"),
    Place("new-york", "New York, New York, United States", _CI, "nyc-metro"),
    Place("brooklyn", "Brooklyn, New York, United States", _CI, "nyc-metro"),
    Place("buffalo", "Buffalo, New York, United States", _CI, "us-ny"),
    Place("seattle", "Seattle, Washington, United States", _CI, "greater-seattle"),
    Place("bellevue", "Bellevue, Washington, United States", _CI, "greater-seattle"),
    Place("redmond", "Redmond, Washington, United States", _CI, "greater-seattle"),
    Place("austin", "Austin, Texas, United States", _CI, "us-tx"),
    Place("dallas", "Dallas, Texas, United States", _CI, "dfw-metroplex"),
    Place("houston", "Houston, Texas, United States", _CI, "us-tx"),
    Place("boston", "Boston, Massachusetts, United States", _CI, "greater-boston"),
    Place("cambridge-ma", "Cambridge, Massachusetts, United States", _CI, "greater-boston"),
    Place("chicago", "Chicago, Illinois, United States", _CI, "greater-chicago"),
    Place("evanston", "Evanston, Illinois, United States", _CI, "greater-chicago"),
    Place("denver", "Denver, Colorado, United States", _CI, "us-co"),
    Place("boulder", "Boulder, Colorado, United States", _CI, "us-co"),
    Place("atlanta", "Atlanta, Georgia, United States", _CI, "us-ga"),
    # Cities: Europe
    Place("london", "London, England, United Kingdom", _CI, "greater-london"),
    Place("manchester", "Manchester, England, United Kingdom", _CI, "gb-eng"),
    Place("cambridge-uk", "Cambridge, England, United Kingdom", _CI, "gb-eng"),
    Place("oxford", "Oxford, England, United Kingdom", _CI, "gb-eng"),
    Place("bristol", "Bristol, England, United Kingdom", _CI, "gb-eng"),
    Place("edinburgh", "Edinburgh, Scotland, United Kingdom", _CI, "gb-sct"),
    Place("glasgow", "Glasgow, Scotland, United Kingdom", _CI, "gb-sct"),
    Place("munich", "Munich, Bavaria, Germany", _CI, "greater-munich"),
    Place("nuremberg", "Nuremberg, Bavaria, Germany", _CI, "de-by"),
    Place("berlin", "Berlin, Berlin, Germany", _CI, "de-be"),
    Place("hamburg", "Hamburg, Hamburg, Germany", _CI, "de-hh"),
    Place("frankfurt", "Frankfurt, Hesse, Germany", _CI, "de-he"),
    Place("paris", "Paris, Ile-de-France, France", _CI, "greater-paris"),
    Place("lyon", "Lyon, Auvergne-Rhone-Alpes, France", _CI, "fr-ara"),
    Place("grenoble", "Grenoble, Auvergne-Rhone-Alpes, France", _CI, "fr-ara"),
    Place("toulouse", "Toulouse, Occitanie, France", _CI, "fr-occ"),
    Place("amsterdam", "Amsterdam, North Holland, Netherlands", _CI, "nl-nh"),
    Place("rotterdam", "Rotterdam, South Holland, Netherlands", _CI, "nl-zh"),
    Place("the-hague", "The Hague, South Holland, Netherlands", _CI, "nl-zh"),
    Place("delft", "Delft, South Holland, Netherlands", _CI, "nl-zh"),
    Place("eindhoven", "Eindhoven, North Brabant, Netherlands", _CI, "nl-nb"),
    Place("madrid", "Madrid, Community of Madrid, Spain", _CI, "es-md"),
    Place("barcelona", "Barcelona, Catalonia, Spain", _CI, "es-ct"),
    Place("milan", "Milan, Lombardy, Italy", _CI, "it-lom"),
    Place("rome", "Rome, Lazio, Italy", _CI, "it-laz"),
    Place("stockholm", "Stockholm, Stockholm County, Sweden", _CI, "se-ab"),
    Place("gothenburg", "Gothenburg, Vastra Gotaland County, Sweden", _CI, "se-o"),
    Place("dublin", "Dublin, County Dublin, Ireland", _CI, "ie-d"),
    Place("cork", "Cork, County Cork, Ireland", _CI, "ie-co"),
    # Cities: Americas, Asia-Pacific
    Place("toronto", "Toronto, Ontario, Canada", _CI, "greater-toronto"),
    Place("waterloo", "Waterloo, Ontario, Canada", _CI, "ca-on"),
    Place("ottawa", "Ottawa, Ontario, Canada", _CI, "ca-on"),
    Place("vancouver", "Vancouver, British Columbia, Canada", _CI, "ca-bc"),
    Place("montreal", "Montreal, Quebec, Canada", _CI, "ca-qc"),
    Place("sao-paulo", "Sao Paulo, Sao Paulo, Brazil", _CI, "br-sp"),
    Place("campinas", "Campinas, Sao Paulo, Brazil", _CI, "br-sp"),
    Place("rio-de-janeiro", "Rio de Janeiro, Rio de Janeiro, Brazil", _CI, "br-rj"),
    Place("bengaluru", "Bengaluru, Karnataka, India", _CI, "greater-bengaluru"),
    Place("mumbai", "Mumbai, Maharashtra, India", _CI, "in-mh"),
    Place("pune", "Pune, Maharashtra, India", _CI, "in-mh"),
    Place("new-delhi", "New Delhi, Delhi, India", _CI, "in-dl"),
    Place("singapore", "Singapore, Singapore", _CI, "sg-cs"),
    Place("sydney", "Sydney, New South Wales, Australia", _CI, "greater-sydney"),
    Place("melbourne", "Melbourne, Victoria, Australia", _CI, "au-vic"),
    Place("brisbane", "Brisbane, Queensland, Australia", _CI, "au-qld"),
    Place("tokyo", "Tokyo, Tokyo, Japan", _CI, "greater-tokyo"),
    Place("osaka", "Osaka, Osaka, Japan", _CI, "jp-27"),
)
# fmt: on

# ---------------------------------------------------------------------------------------------
# Work
# ---------------------------------------------------------------------------------------------

# fmt: off
JOB_TITLES: tuple[str, ...] = (
    "Software Engineer", "Senior Software Engineer", "Staff Software Engineer",
    "Principal Engineer", "Engineering Manager", "Director of Engineering", "VP Engineering",
    "Chief Technology Officer", "Frontend Developer", "Backend Developer", "Full Stack Developer",
    "Mobile Developer", "DevOps Engineer", "Site Reliability Engineer", "Security Engineer",
    "QA Engineer", "Data Engineer", "Data Scientist", "Senior Data Scientist",
    "Machine Learning Engineer", "Data Analyst", "Business Intelligence Analyst",
    "Head of Data", "Solutions Architect", "Cloud Architect", "IT Support Specialist",
    "Systems Administrator", "Product Manager", "Senior Product Manager", "Director of Product",
    "VP Product", "Chief Product Officer", "Product Designer", "UX Researcher", "UX Designer",
    "Graphic Designer", "Head of Design", "Account Executive", "Senior Account Executive",
    "Sales Development Representative", "Business Development Manager", "Account Manager",
    "Head of Sales", "VP Sales", "Chief Revenue Officer", "Sales Engineer",
    "Customer Success Manager", "Head of Customer Success", "Support Specialist",
    "Marketing Manager", "Product Marketing Manager", "Content Strategist",
    "Growth Marketing Manager", "Social Media Manager", "VP Marketing",
    "Chief Marketing Officer", "Recruiter", "Technical Recruiter", "Talent Acquisition Lead",
    "HR Business Partner", "People Operations Manager", "Chief People Officer",
    "Financial Analyst", "Senior Accountant", "Controller", "Finance Manager",
    "Chief Financial Officer", "Operations Manager", "Project Manager", "Program Manager",
    "Supply Chain Analyst", "Chief Operating Officer", "Legal Counsel", "General Counsel",
    "Office Manager", "Executive Assistant", "Management Consultant", "Research Scientist",
    "Clinical Research Associate", "Chief Executive Officer", "Founder", "Co-Founder",
    "Software Engineering Intern", "Marketing Intern",
)

FUNCTIONS: tuple[str, ...] = (
    "Accounting", "Administrative", "Arts and Design", "Business Development",
    "Consulting", "Customer Success and Support", "Education", "Engineering",
    "Entrepreneurship", "Finance", "Healthcare Services", "Human Resources",
    "Information Technology", "Legal", "Marketing", "Media and Communication", "Operations",
    "Product Management", "Program and Project Management", "Purchasing", "Quality Assurance",
    "Real Estate", "Research", "Sales",
)

SKILLS: tuple[str, ...] = (
    "Python", "Java", "JavaScript", "TypeScript", "Go", "Rust", "C++", "C#", "Kotlin", "Swift",
    "SQL", "PostgreSQL", "NoSQL", "GraphQL", "REST APIs", "Microservices", "Distributed Systems",
    "Cloud Computing", "Kubernetes", "Docker", "Terraform", "Linux", "CI/CD", "Git",
    "React", "Node.js", "Django", "Spring Boot", "System Design", "Software Architecture",
    "Machine Learning", "Deep Learning", "Natural Language Processing", "Computer Vision",
    "Data Analysis", "Data Visualization", "Statistics", "A/B Testing", "Data Engineering",
    "ETL", "Apache Spark", "Data Modeling", "Business Intelligence", "Excel", "Forecasting",
    "Financial Modeling", "Budgeting", "Accounting", "Auditing", "Tax", "Valuation",
    "Risk Management", "Compliance", "Cybersecurity", "Network Security", "Penetration Testing",
    "Incident Response", "Product Management", "Product Strategy", "Roadmapping",
    "User Research", "UX Design", "UI Design", "Prototyping", "Design Systems",
    "Agile Methodologies", "Scrum", "Project Management", "Program Management",
    "Stakeholder Management", "Change Management", "Process Improvement", "Lean Six Sigma",
    "Supply Chain Management", "Logistics", "Procurement", "Vendor Management", "Negotiation",
    "B2B Sales", "Enterprise Sales", "Account Management", "Lead Generation", "CRM",
    "Sales Operations", "Customer Success", "Customer Service", "Digital Marketing", "SEO",
    "Content Marketing", "Copywriting", "Social Media Marketing", "Brand Management",
    "Marketing Analytics", "Email Marketing", "Public Relations", "Event Planning",
    "Recruiting", "Talent Acquisition", "Employee Relations", "Compensation and Benefits",
    "Onboarding", "Leadership", "Team Building", "Coaching", "Mentoring", "Public Speaking",
    "Communication", "Strategic Planning", "Business Strategy", "Market Research",
    "Go-to-Market Strategy", "Partnerships", "Fundraising", "Contract Negotiation",
    "Corporate Law", "Clinical Research", "Regulatory Affairs", "Quality Assurance",
    "Technical Writing", "Cross-functional Collaboration", "Problem Solving",
)
# fmt: on

# ---------------------------------------------------------------------------------------------
# Education and credentials
# ---------------------------------------------------------------------------------------------

SCHOOLS: tuple[School, ...] = (
    School("Stanford University", "palo-alto"),
    School("University of California, Berkeley", "berkeley"),
    School("San Jose State University", "san-jose"),
    School("University of California, Los Angeles", "los-angeles"),
    School("University of Southern California", "los-angeles"),
    School("University of California, San Diego", "san-diego"),
    School("Columbia University", "new-york"),
    School("New York University", "new-york"),
    School("Pratt Institute", "brooklyn"),
    School("University at Buffalo", "buffalo"),
    School("University of Washington", "seattle"),
    School("The University of Texas at Austin", "austin"),
    School("Rice University", "houston"),
    School("Massachusetts Institute of Technology", "cambridge-ma"),
    School("Harvard University", "cambridge-ma"),
    School("Boston University", "boston"),
    School("Northeastern University", "boston"),
    School("University of Chicago", "chicago"),
    School("Northwestern University", "evanston"),
    School("University of Colorado Boulder", "boulder"),
    School("Georgia Institute of Technology", "atlanta"),
    School("Imperial College London", "london"),
    School("University College London", "london"),
    School("London School of Economics and Political Science", "london"),
    School("University of Manchester", "manchester"),
    School("University of Cambridge", "cambridge-uk"),
    School("University of Oxford", "oxford"),
    School("University of Bristol", "bristol"),
    School("University of Edinburgh", "edinburgh"),
    School("Technical University of Munich", "munich"),
    School("Ludwig Maximilian University of Munich", "munich"),
    School("Humboldt University of Berlin", "berlin"),
    School("University of Hamburg", "hamburg"),
    School("Goethe University Frankfurt", "frankfurt"),
    School("Sorbonne University", "paris"),
    School("HEC Paris", "paris"),
    School("Grenoble Alpes University", "grenoble"),
    School("University of Amsterdam", "amsterdam"),
    School("Delft University of Technology", "delft"),
    School("Erasmus University Rotterdam", "rotterdam"),
    School("Eindhoven University of Technology", "eindhoven"),
    School("Complutense University of Madrid", "madrid"),
    School("University of Barcelona", "barcelona"),
    School("Bocconi University", "milan"),
    School("Politecnico di Milano", "milan"),
    School("Sapienza University of Rome", "rome"),
    School("KTH Royal Institute of Technology", "stockholm"),
    School("Chalmers University of Technology", "gothenburg"),
    School("Trinity College Dublin", "dublin"),
    School("University College Cork", "cork"),
    School("University of Toronto", "toronto"),
    School("University of Waterloo", "waterloo"),
    School("University of British Columbia", "vancouver"),
    School("McGill University", "montreal"),
    School("University of Sao Paulo", "sao-paulo"),
    School("Indian Institute of Science", "bengaluru"),
    School("Indian Institute of Technology Bombay", "mumbai"),
    School("Indian Institute of Technology Delhi", "new-delhi"),
    School("National University of Singapore", "singapore"),
    School("University of Sydney", "sydney"),
    School("University of Melbourne", "melbourne"),
    School("University of Queensland", "brisbane"),
    School("University of Tokyo", "tokyo"),
    School("Osaka University", "osaka"),
)

# fmt: off
DEGREES: tuple[str, ...] = (
    "Associate of Arts", "Bachelor of Arts", "Bachelor of Science", "Bachelor of Engineering",
    "Bachelor of Business Administration", "Master of Arts", "Master of Science",
    "Master of Engineering", "MBA", "Juris Doctor", "Doctor of Medicine", "PhD",
)

FIELDS_OF_STUDY: tuple[str, ...] = (
    "Computer Science", "Software Engineering", "Electrical Engineering",
    "Mechanical Engineering", "Civil Engineering", "Chemical Engineering", "Data Science",
    "Mathematics", "Statistics", "Physics", "Chemistry", "Biology", "Biomedical Engineering",
    "Economics", "Business Administration", "Finance", "Accounting", "Marketing",
    "Management Information Systems", "Operations Research", "Industrial Engineering",
    "Psychology", "Sociology", "Political Science", "International Relations", "Law",
    "Medicine", "Public Health", "Nursing", "Communications", "Journalism", "Graphic Design",
    "English Literature", "History", "Philosophy", "Supply Chain Management",
)
# fmt: on

CERTIFICATIONS: tuple[Certification, ...] = (
    Certification("Project Management Professional (PMP)", "Project Management Institute"),
    Certification(
        "Certified Associate in Project Management (CAPM)", "Project Management Institute"
    ),
    Certification("PMI Agile Certified Practitioner (PMI-ACP)", "Project Management Institute"),
    Certification("Certified ScrumMaster (CSM)", "Scrum Alliance"),
    Certification("Certified Scrum Product Owner (CSPO)", "Scrum Alliance"),
    Certification("Certified Information Systems Security Professional (CISSP)", "ISC2"),
    Certification("Certified Information Systems Auditor (CISA)", "ISACA"),
    Certification("Certified Information Security Manager (CISM)", "ISACA"),
    Certification("Security+", "CompTIA"),
    Certification("Certified Kubernetes Administrator (CKA)", "The Linux Foundation"),
    Certification("Chartered Financial Analyst (CFA)", "CFA Institute"),
    Certification("Certified Public Accountant (CPA)", "American Institute of CPAs"),
    Certification("Financial Risk Manager (FRM)", "Global Association of Risk Professionals"),
    Certification("SHRM Certified Professional (SHRM-CP)", "Society for Human Resource Management"),
    Certification("Lean Six Sigma Green Belt", "International Association for Six Sigma"),
    Certification("Lean Six Sigma Black Belt", "International Association for Six Sigma"),
    Certification("ITIL 4 Foundation", "PeopleCert"),
    Certification("Certified Supply Chain Professional (CSCP)", "ASCM"),
    Certification("Professional in Human Resources (PHR)", "HR Certification Institute"),
    Certification("Cloud Architecture Professional", "Northpeak Academy"),
    Certification("Data Analytics Professional Certificate", "Northpeak Academy"),
    Certification("Applied Machine Learning Certificate", "Lumora Institute"),
    Certification("Product Management Certificate", "Lumora Institute"),
    Certification("Growth Marketing Certificate", "Brightwell School of Business"),
    Certification("Negotiation Mastery", "Brightwell School of Business"),
    Certification("Certified Sales Professional", "Velorix Sales Academy"),
    Certification("Customer Success Manager Certification", "Velorix Sales Academy"),
    Certification("UX Design Professional Certificate", "Tessaly Design Institute"),
    Certification("Certified Data Privacy Professional", "Corvanta Privacy Council"),
    Certification("Responsible AI Practitioner", "Corvanta Privacy Council"),
    Certification("Certified Technical Recruiter", "Halvorn Talent Guild"),
)

# ---------------------------------------------------------------------------------------------
# Enumerations
# ---------------------------------------------------------------------------------------------

EXPERIENCE_LEVELS: tuple[str, ...] = (
    "Internship",
    "Entry level",
    "Associate",
    "Mid-Senior level",
    "Director",
    "Executive",
)
JOB_TYPES: tuple[str, ...] = ("full-time", "part-time", "contract", "internship")
REMOTE_TYPES: tuple[str, ...] = ("on-site", "remote", "hybrid")
RECENT_ACTIVITIES: tuple[str, ...] = (
    "funding",
    "hiring_surge",
    "leadership_change",
    "new_product",
    "news_mention",
)
MEDIA_TYPES: tuple[str, ...] = ("image", "video", "document", "article")

# fmt: off
BENEFITS: tuple[str, ...] = (
    "Medical insurance", "Dental insurance", "Vision insurance", "401(k)", "Pension plan",
    "Paid maternity leave", "Paid paternity leave", "Commuter benefits", "Disability insurance",
    "Tuition assistance", "Student loan assistance", "Stock options", "Annual bonus",
    "Flexible working hours", "Remote work stipend", "Learning and development budget",
    "Wellness program", "Gym membership", "Child care support", "Unlimited paid time off",
    "Company retreats", "Free meals",
)
# fmt: on

# ---------------------------------------------------------------------------------------------
# Text templates (str.format). Each comment lists the placeholders the templates may use.
# ---------------------------------------------------------------------------------------------

# Placeholders: {other}, {company}
RELATIONSHIPS: tuple[str, ...] = (
    "{other} managed me directly at {company}",
    "I managed {other} directly at {company}",
    "worked with {other} on the same team at {company}",
    "{other} was senior to me but didn't manage me directly at {company}",
    "I was senior to {other} but didn't manage them directly at {company}",
    "worked with {other} on different teams at {company}",
    "{other} was a client of mine while I was at {company}",
    "I was a client of {other} while they were at {company}",
    "{other} mentored me at {company}",
    "I mentored {other} at {company}",
    "worked with {other} on a cross-company project with {company}",
)

# Placeholders: {name}, {industry}, {city}, {specialty}
COMPANY_DESCRIPTIONS: tuple[str, ...] = (
    "{name} is a {industry} company headquartered in {city}, focused on {specialty}.",
    (
        "Founded in {city}, {name} helps organizations get more out of {specialty}. "
        "We are a fast-growing team in {industry}."
    ),
    (
        "{name} builds products for {specialty}. From our home base in {city} we serve "
        "customers across the {industry} sector."
    ),
    (
        "At {name}, we believe {specialty} should be simple. Our {city} team brings years "
        "of {industry} experience to every engagement."
    ),
    "{name} is redefining {specialty} for the {industry} industry. Based in {city}.",
    (
        "{name} partners with leading {industry} organizations to deliver measurable results "
        "in {specialty}. Offices in {city} and beyond."
    ),
    (
        "We are {name}: a {city}-based {industry} business on a mission to make {specialty} "
        "accessible to everyone."
    ),
    (
        "{name} combines deep {industry} expertise with a practical approach to {specialty}. "
        "Headquartered in {city}."
    ),
    (
        "Trusted by customers worldwide, {name} is a {industry} leader in {specialty}, "
        "with its headquarters in {city}."
    ),
    (
        "{name} started in {city} with a simple idea: {specialty} done right. Today we are a "
        "growing {industry} company."
    ),
    ("From {city}, {name} designs, builds and supports solutions for {specialty} in {industry}."),
    (
        "{name} is an independent {industry} firm specializing in {specialty}. We are proud "
        "to call {city} home."
    ),
)

# Placeholders: {first}, {title}, {company}, {skill}, {years}
ABOUT_TEMPLATES: tuple[str, ...] = (
    (
        "I'm {first}, a {title} at {company} with {years} years of experience. "
        "I care most about {skill}."
    ),
    (
        "{title} with {years}+ years of experience. Currently at {company}, "
        "where I focus on {skill}."
    ),
    (
        "Over the past {years} years I have built a career around {skill}. "
        "Today I work as a {title} at {company}."
    ),
    (
        "Hi, I'm {first}. I help teams at {company} move faster with {skill}. "
        "{years} years in, still learning every day."
    ),
    (
        "Passionate {title} with a track record in {skill}. {years} years of experience, "
        "currently at {company}."
    ),
    (
        "{first} here. I lead work on {skill} as {title} at {company}. "
        "Always happy to connect and share what I've learned in {years} years."
    ),
    (
        "Experienced {title} ({years} years) specializing in {skill}. "
        "Open to conversations about what we're building at {company}."
    ),
    (
        "I turn complex problems into simple solutions. {title} at {company}; "
        "{years} years of hands-on {skill}."
    ),
    (
        "As a {title} at {company}, I combine {skill} with a focus on people. "
        "{years} years across startups and larger organizations."
    ),
    (
        "My name is {first} and I've spent {years} years getting better at {skill}. "
        "Right now that means being a {title} at {company}."
    ),
    ("{title} | {skill} | {years} years of experience. Building great things at {company}."),
    (
        "Curious, pragmatic and team-first. I'm {first}, {title} at {company}, "
        "and I've worked on {skill} for {years} years."
    ),
)

# Placeholders: {topic}, {company}
POST_TEMPLATES: tuple[str, ...] = (
    "Excited to share that {company} is doubling down on {topic} this year!",
    "Three lessons I learned about {topic} while working at {company}.",
    "Hot take: most teams overcomplicate {topic}. Here is how we keep it simple at {company}.",
    "We're hiring at {company}! If {topic} gets you out of bed in the morning, reach out.",
    "Just wrapped up a great panel on {topic}. Thanks to everyone who joined us at {company}.",
    "What is the biggest misconception about {topic}? Curious to hear your thoughts.",
    "Proud of the {company} team for shipping our latest work on {topic}.",
    "Five books that changed how I think about {topic}. Number three surprised me.",
    "{topic} is changing faster than ever. Here's what we're seeing at {company}.",
    "Reflecting on a year of {topic} at {company}: the wins, the misses and what's next.",
    "If you're getting started with {topic}, start small and measure everything.",
    "Grateful to my colleagues at {company} for teaching me so much about {topic}.",
    "New blog post: how {company} approaches {topic} at scale. Link in the comments.",
    "Unpopular opinion: {topic} is more about people than technology.",
    "Had a fantastic conversation today about the future of {topic}. Still thinking about it.",
    "Our customers keep asking about {topic}, so {company} built something for it.",
    (
        "Celebrating a milestone at {company} today! None of it would be possible without "
        "our work on {topic}."
    ),
    "A simple framework for thinking about {topic} that I wish I'd known years ago.",
    "Speaking next week about {topic}. Come say hi if you're attending!",
    "The best advice I ever got about {topic}: focus on the problem, not the tool.",
    "Why {company} is betting on {topic}, and what it means for our customers.",
    "Quick poll: how is your team approaching {topic} in the coming quarter?",
    "We just published our annual report on {topic}. Some of the findings may surprise you.",
    "After ten years in the field, here's what still excites me about {topic}.",
    "Mentoring tip: ask your mentee what they find hardest about {topic}, then listen.",
    "Behind the scenes at {company}: a week in the life of our {topic} team.",
    "Is {topic} overhyped? I don't think so, and here's why.",
    "Thrilled to announce I'm starting a new position at {company} working on {topic}!",
    "Lessons from failure: what went wrong with our first attempt at {topic}.",
    "Shout-out to the community around {topic}. You make this work so much fun.",
    "Throwback to when {company} had five people and a whiteboard full of {topic} ideas.",
)

# Placeholders: {title}, {company}, {location}, {skill}, {level}
JOB_DESCRIPTIONS: tuple[str, ...] = (
    (
        "{company} is looking for a {title} to join our team in {location}. "
        "This is a {level} role; strong {skill} experience is required."
    ),
    (
        "As a {title} at {company}, you will own projects end to end and work closely with "
        "cross-functional partners. Location: {location}. Level: {level}. "
        "Must-have: {skill}."
    ),
    (
        "Join {company} in {location} as our next {title}. You bring {skill} and a bias for "
        "action; we bring interesting problems and a supportive team. Seniority: {level}."
    ),
    (
        "We are hiring a {level} {title} in {location}. At {company} you will use {skill} "
        "every day to help our customers succeed."
    ),
    (
        "About the role: {company} needs a {title} ({level}) who is excited about {skill}. "
        "You will be based in {location} and report to the team lead."
    ),
    (
        "{title} - {location}. {company} is growing and we need someone with hands-on {skill} "
        "to help us scale. Experience level: {level}."
    ),
    (
        "What you'll do: shape how {company} uses {skill}, mentor teammates and ship "
        "high-quality work as a {title}. {level}, {location}."
    ),
    (
        "{company} ({location}) is seeking a {title}. Ideal candidates are {level} "
        "professionals with a proven record in {skill}."
    ),
    (
        "Are you a {title} who loves {skill}? {company} is hiring in {location}. "
        "We are looking for {level} candidates who want to make an impact."
    ),
    (
        "Help {company} build the future from {location}. Position: {title}. "
        "Level: {level}. Key skill: {skill}. Competitive pay and benefits."
    ),
)

# Placeholders: {first}, {skill}, {company}
RECOMMENDATION_TEXTS: tuple[str, ...] = (
    "{first} is one of the most talented people I worked with at {company}.",
    "I can't recommend {first} highly enough. Their {skill} skills are outstanding.",
    (
        "Working with {first} at {company} was a pleasure. {first} brings deep expertise in "
        "{skill} and a great attitude."
    ),
    "{first} consistently raised the bar at {company}, especially when it came to {skill}.",
    "Any team would be lucky to have {first}. A true expert in {skill}.",
    (
        "{first} was the go-to person for {skill} at {company}. Reliable, thoughtful and "
        "always willing to help."
    ),
    "I learned a great deal about {skill} from {first} during our time at {company}.",
    (
        "{first} combines strong {skill} with excellent communication. A key contributor "
        "at {company}."
    ),
    "{first} made everyone around them better. Highly recommended for any {skill} role.",
    (
        "When {company} faced its toughest challenges, {first} stepped up. "
        "Exceptional {skill} and leadership."
    ),
    "{first} is curious, humble and brilliant at {skill}. I'd work with them again anytime.",
    "I had the privilege of managing {first} at {company}. Their {skill} work was superb.",
    "{first} delivered results at {company} again and again. A standout in {skill}.",
    (
        "Few people understand {skill} as well as {first}. {company} was lucky to have "
        "them on the team."
    ),
    "{first} is a generous mentor and an expert in {skill}. Strongly recommended.",
)

# Placeholders: {title}, {company}, {skill}
EXPERIENCE_DESCRIPTIONS: tuple[str, ...] = (
    "Led {skill} initiatives as {title} at {company}.",
    "Worked as {title} on a team of eight, focusing on {skill}.",
    "Drove adoption of {skill} across {company}, reducing turnaround times significantly.",
    "Responsible for {skill} in a fast-paced environment at {company}.",
    "Joined {company} as {title}; built the {skill} practice from the ground up.",
    "Partnered with leadership at {company} to improve {skill} outcomes.",
    "Owned day-to-day {skill} work and mentored two junior colleagues.",
    "As {title}, delivered several high-impact projects centered on {skill}.",
    "Helped {company} scale through rapid growth, with a focus on {skill}.",
    "Key contributor to {company}'s {skill} roadmap.",
    "Improved {skill} processes, saving the team hundreds of hours per year.",
    "Represented {company} at industry events on {skill}.",
    "Promoted to {title} after leading a successful {skill} program.",
    "Managed vendors and internal stakeholders for {skill} at {company}.",
    "Built dashboards and playbooks to make {skill} repeatable across {company}.",
)

# Placeholders: {name}, {city}, {field}
SCHOOL_DESCRIPTIONS: tuple[str, ...] = (
    "{name} is a leading institution in {city}, known for its programs in {field}.",
    "Located in {city}, {name} offers undergraduate and graduate degrees, including {field}.",
    (
        "{name} combines world-class research with teaching excellence. Its {field} "
        "department attracts students from around the world to {city}."
    ),
    "Founded in {city}, {name} has a long tradition of excellence in {field}.",
    ("At {name}, students in {field} and many other disciplines learn in the heart of {city}."),
    "{name} ({city}) is a research university with strengths in {field}.",
    "From its campus in {city}, {name} prepares the next generation of leaders in {field}.",
    "{name} is home to a vibrant community of scholars in {city}, with a renowned {field} school.",
)
