package main

// The chronicle's sentence material, one entry a year (or a theme), in
// order: prose, so it is written here rather than generated.

// events is the hand-written account of each year, in order.
var events = []string{
	"The decade opened quietly. Port Calder was still a fishing harbour with a container quay attached, and the Harbour Authority's new chair, Maren Vollan, spent her first months touring the breakwaters and listening to complaints about silted berths. The old diesel reserve plant behind the timber wharf supplied the cranes and much of the city at night. Talks with the Development Bank about a second deep-water berth began in the autumn, but few people outside the Authority expected them to succeed, and the local newspaper called the plan 'a harbour built on hope'.",
	"Dredging of the approach channel started in April and ran late because of an unusually stormy spring. The Calder Quay incubator opened in a former fish warehouse on the north side, a move the Authority described as a bet that the port could host ideas as well as cargo. Boats from Veloria and Dorsk were detained at the Grey Shoals in the summer, and for several weeks the fish market ran short of herring. By December the Authority had a financing plan for the new berth but still lacked a partner willing to take an equity stake.",
	"The partner arrived from Haiyun. In March the Authority sold 24 percent of the terminal operating company to Haiyun Ocean Logistics, keeping a golden share over berth allocation, and two Haiyun shipping lines announced weekly calls. Parliament debated foreign influence for three days before approving the deal. In the same year Veloria signed its Economic Partnership Agreement with Dorsk, and hauliers queued at the customs sheds on the first morning of duty-free trade. Brinewatch tested its first sensor buoy from a pontoon in the inner basin.",
	"Construction dominated the year. Piling rigs worked through the winter on the second berth, and two ship-to-shore cranes arrived from abroad on a heavy-lift vessel in September, drawing crowds to the harbour wall. The 2017 Fisheries Act changed the mood on the fish quay: many small boat owners feared the new transferable quotas, and several sold their licences within months. Tidepay, a payments start-up founded by two graduates from the Lantern Quarter, rented its first office overlooking the ferry terminal.",
	"The automated stacking yard went live in February, and in March the Calder Dockworkers' Union walked out for eleven days. Ships waited at anchor in the roads, and the fish processors ran out of reefer capacity. The settlement promised every affected worker redeployment or retraining and created a training centre with Aldren University. In the summer the cold-storage hub opened beside the terminal, and the first reefer containers of frozen herring left for Haiyun. The tidal pilot in the Kessa Strait was assembled on the heavy-lift quay before being towed out.",
	"This was the busiest year the port had seen. Cruise calls peaked at 121, the old town was crowded from May to September, and residents began to complain about fumes from ships at berth. The first battery-electric ferry entered service on the Ostrel route in June, charged from a new shore-power station. The summer was dry, and by October the water board was warning that reservoirs were unusually low. Boats were again detained at the Grey Shoals, and the blade plant at Ostrel shipped its first finished blades through Port Calder.",
	"The pandemic arrived in March. The ferry timetable was cut to essential crossings, cruise ships disappeared, and the Authority kept the cargo terminal open with crews working in fixed teams. Dorsk's safeguard duty on salted fish hit the Kessa Isles processors who shipped through the port. In August the water board introduced overnight rationing, and the fish market hosed its floors with seawater. Sorrel Bank's first turbines were commissioned in the autumn, and the installation vessels used the heavy-lift quay as their base.",
	"Recovery was uneven. Container volumes rebounded strongly as shipping lines rerouted through Port Calder, but cruise traffic returned only in October. The Northern Link interconnector entered service, the old diesel reserve plant behind the timber wharf was switched off for good, and the desalination plant opened on reclaimed land south of the terminal, allowing rationing to end in April. In June the arbitration panel ruled against Dorsk's salted-fish duty. Haiyun suspended mussel imports for six weeks over a labelling error, and reefer boxes stacked up on the quay.",
	"Winter cable faults on the Northern Link caused rolling power cuts, and one reefer shipment to Haiyun spoiled before backup generators could be connected. The Authority installed permanent generators at the cold store in the spring. Then, on 14 November, Storm Ilse brought the highest surge on record. Water poured over the old harbour wall, flooded the fish market and the maritime museum, which had opened only months earlier, and tore away part of the Tull ferry pier. The terminal itself, built on higher ground, lost only two days of work.",
	"Repairs and plans took most of the year. The government's coastal adaptation plan included sea walls for the old harbour, and engineers began surveying the foundations of the timber wharf. The city council capped cruise calls at 90 a year and set a deadline for shore power. The second phase of Sorrel Bank was completed, and the Grey Shoals joint management zone was signed in a ceremony on a Dorsk patrol vessel moored at the Authority's pontoon. Container throughput passed 400,000 TEU for the first time.",
	"The decade closed with a port very different from the one it began with. Five of seven ferry routes were electric, cruise ships plugged into shore power overnight, and the container terminal handled more than twice its 2014 volume. Work began on the first section of the new sea wall. The Authority's annual report noted that a third of its cargo was linked to Haiyun, that fish landings had stabilised after years of decline, and that the port's electricity now came mostly from wind. Maren Vollan retired in December after ten years as chair.",
}

// Sentence banks chosen per year: each entry is written for that year.
var workforce = []string{
	"About 1,100 people worked directly for the port, most of them on the fish quay and in the processing sheds.",
	"The Authority hired its first environmental officer, partly to deal with complaints about dredging spoil.",
	"Crane drivers were sent to Dorsk for training on the new equipment, and the union asked for guarantees about the yard.",
	"Construction crews from Dorsk and Veloria worked side by side, and the canteen served three shifts a day.",
	"After the strike, a joint safety committee began meeting monthly, and the first retrained yard workers qualified as automation technicians.",
	"Seasonal staff for the cruise season were hard to find because rents in the old town had risen sharply.",
	"Dockworkers were organised in fixed teams to limit infection, and no shift was cancelled for lack of crew.",
	"Many ferry crew members retrained to operate battery systems as more routes were converted.",
	"Volunteers from the dockworkers' union helped clear the fish market after the storm.",
	"The training centre run with Aldren University reported that most former yard workers now maintained automated equipment.",
	"The Authority's workforce was smaller than in 2014 but better paid, and a quarter of its engineers were Aldren graduates.",
}

var environment = []string{
	"Water quality in the inner basin was poor after decades of untreated discharges from the processing sheds.",
	"Storms in the spring delayed dredging, and the spoil was later used to build up reclaimed land south of the quay.",
	"Monitoring buoys placed in the basin that year gave the first continuous record of temperature and oxygen in the harbour.",
	"Noise from night-time piling prompted complaints from the Lantern Quarter, and work hours were limited.",
	"The cold store was built with heat recovery from its refrigeration plant, which warmed the neighbouring offices.",
	"Air-quality readings in the old town exceeded guidelines on several summer days when more than two cruise ships were in port.",
	"Reservoir levels fell to a fifth of capacity, and the port stopped washing down quays with fresh water.",
	"Harbour seals were seen in the basin again, which the marine laboratory attributed to cleaner discharges and fewer ship movements during the pandemic.",
	"The surge from Storm Ilse left salt damage in electrical installations along the old harbour.",
	"Engineers modelled a rise in extreme sea levels of up to half a metre by mid-century when designing the new sea wall.",
	"Shore power and electric ferries cut the port's measured emissions by about 60 percent compared with 2014.",
}

var community = []string{
	"Fishing families still set the rhythm of the harbour, and the early-morning auction was the city's busiest gathering.",
	"Residents of the north quay worried that the incubator would bring higher rents, a fear that proved justified later in the decade.",
	"The Lantern Quarter's trading houses celebrated the Haiyun deal with a banquet, while some fishers felt the port was turning its back on them.",
	"Children from local schools were invited to watch the cranes arrive, and the event became a small festival.",
	"The strike divided opinion in the city, but a fund for strikers' families raised more money than organisers expected.",
	"Shopkeepers in the old town enjoyed record takings, though many residents avoided the centre on cruise days.",
	"Neighbours in the Lantern Quarter delivered food to quarantined crews, and the harbour festival was cancelled for the first time since the war.",
	"The end of rationing in April was marked by an open day at the desalination plant, attended by several thousand people.",
	"The storm forced the evacuation of houses behind the old harbour wall, and the Lantern Quarter opened its community hall as a shelter.",
	"Residents were consulted on the design of the sea wall, and many asked that it include a public promenade.",
	"The harbour festival returned at full size, and the Lantern Festival procession ran the length of Calder Quay for the first time.",
}

// more is a second hand-written paragraph for each year: what happened away
// from the headline figures.
var more = []string{
	"Away from the headlines, the harbour's routines continued much as they had for a generation. The fish auction opened at five, the ferries left on the hour for Ostrel, and the repair yard at the end of the timber wharf kept a fleet of wooden trawlers afloat with parts salvaged from older boats. The Authority's engineers published a frank survey showing that three of the port's five quays needed rebuilding within fifteen years. Shipping agents complained that Port Calder was losing transhipment business to Dorsk because ships could not be turned around quickly enough, and that the customs office closed too early in the evening.",
	"The incubator's first tenants were a handful of engineers from Aldren University, a designer of fishing apps and a small firm repairing marine electronics. The Authority charged them a nominal rent, arguing that activity on the quay was worth more than income. Meanwhile the Dorsk detentions at the Grey Shoals became a diplomatic matter, and the foreign ministry summoned the Dorsk ambassador. Fishermen's wives organised a protest on the harbour steps, and the fisheries minister promised talks. Tonnage through the port grew slowly, but the Authority's balance sheet was strong enough to borrow.",
	"The Haiyun agreement changed the rhythm of the terminal. Larger ships arrived on a fixed weekly schedule, and the Authority extended working hours to turn them around overnight. Customs officers were trained in Haiyun's certification rules, and the Lantern Quarter's trading houses hired young graduates who could draft contracts in both Mandarin and Velorian. The first duty-free lorries to Dorsk carried potatoes and wool from Ostrel. Critics warned that Port Calder was becoming dependent on one foreign partner, a warning the Authority acknowledged in its annual report while arguing that the alternative was slow decline.",
	"For the port's neighbours it was a noisy year. Piling rigs hammered into the seabed from dawn, and the Authority set up a hotline for complaints. Aldren University opened its offshore renewables programme, and its first students used the construction site as a classroom, measuring vibration and sediment plumes. The quota reform reduced the number of boats on the fish quay, and the auction house began selling part of its catch online to buyers on the mainland of Dorsk. Insurance costs for the construction rose after a crane barge broke its moorings during an autumn gale.",
	"The strike was the longest in the port's history. Pickets gathered at the terminal gate each morning, and the fish processors, unable to ship, laid off temporary staff. Negotiations were held in the Aldren University senate hall, chosen as neutral ground, and the university's rector was credited with suggesting the training centre that broke the deadlock. Once the yard was running, the terminal could handle ships faster than ever, and two more shipping lines added Port Calder to their rotations. The cold store's opening meant that frozen fish could be shipped year-round rather than salted.",
	"The cruise boom brought money and friction in equal measure. On some days three ships were alongside at once and six thousand passengers crowded the old town, whose streets were built for carts. The council commissioned a study of the trade's costs and benefits. Down on the fish quay, the electric ferry's quiet departures became a small attraction in their own right. The dry autumn foreshadowed the drought: water pressure at the quays dropped, and the fire service warned the Authority to keep its tanks full. Grey Shoals detentions again strained relations with Dorsk.",
	"Life at the port narrowed to essentials. The passenger terminal was turned into a testing centre, the cruise quay sat empty, and the Authority lent its offices to the health service. Ships still came, and dockworkers kept the country supplied with food and medicine. The salted-fish duty imposed by Dorsk left warehouses full of unsold stock, and several Kessa Isles processors gave up. When rationing began, the cold store and the ferries were given priority for water. The commissioning of Sorrel Bank was one of the few pieces of good news, and the installation crews became a familiar sight in the harbour bars.",
	"The reopening brought its own problems. Shipping lines rerouted through Port Calder to avoid congestion elsewhere, and the terminal worked at capacity for months. The desalination plant's opening ended the long months of rationing and was celebrated with a public open day. The arbitration ruling against Dorsk was welcomed on the fish quay, though it came too late for several firms. The Haiyun mussel suspension showed how quickly a single paperwork error could stop a trade, and the Authority set up a certification help desk staffed by Lantern Quarter bilingual advisers.",
	"The year tested the port's resilience twice. The winter power cuts revealed how much depended on a single cable, and the Authority bought generators for the cold store, the control tower and the shore-power station. Storm Ilse then showed the limits of the old harbour. Emergency crews worked through the night to pump out the fish market, and the ferry to Tull was suspended for three weeks while the pier was repaired. The Authority's own losses were covered by insurance, but many small businesses in the old harbour were not insured against flooding.",
	"Recovery became an opportunity. The sea-wall design included a public promenade, flood gates and a raised fish market, and the Authority won funding from the new climate resilience fund. The cruise cap forced the Authority to choose which lines to accept, and it favoured ships equipped for shore power. The Grey Shoals agreement eased the tension that had shadowed the fish quay since 2015. Cargo volumes passed a symbolic milestone, and the Authority's annual report spoke for the first time of Port Calder as a logistics hub rather than a fishing port.",
	"The final year was one of consolidation. The container terminal ran smoothly, the electric ferries ran on schedule, and the fish quay, smaller than in 2014, sold more of its catch fresh and at higher prices. The Authority began planning a third berth, this time with a stake offered to a Dorsk pension fund as well as to Haiyun. Maren Vollan's farewell speech thanked the dockworkers, the islanders and the Lantern Quarter, and warned that the next decade's challenge would be rising seas rather than rising cargo.",
}

// quotes gives each year one voice from the harbour.
var quotes = []string{
	"'We have a port that could be great and a budget that could be smaller,' the Authority's chief engineer told the annual meeting.",
	"'The incubator is cheap, warm and ten metres from the water, which is all an engineer needs,' said one of its first tenants.",
	"'We kept the key to the door,' the transport minister said of the golden share, 'and we let a partner help pay for the house.'",
	"'My father fished for forty years; I sold my quota in forty minutes,' one Kessa Isles skipper told a radio reporter.",
	"'Nobody will be thrown off this quay by a machine,' the union's negotiator said when the settlement was signed.",
	"'On a good day we sell more ice cream than herring,' joked the owner of a café on the passenger quay.",
	"'The port never closed, because the islands cannot live without it,' the harbourmaster wrote in his year-end letter.",
	"'Fresh water from the sea, with wind from the sea: that is Veloria,' the prime minister said at the plant's opening.",
	"'The water came over the wall like the wall was not there,' a fish-market trader recalled after the storm.",
	"'We are building the wall for our grandchildren, and we should build it with them in mind,' a city councillor said.",
	"'We leave the port busier, cleaner and more exposed than we found it,' Maren Vollan said in her farewell speech.",
}

// ships is a note on the vessels that marked each year.
var ships = []string{
	"The largest vessel to call was the feeder ship Northern Tern, with 1,100 containers aboard.",
	"The dredger Sand Lark spent seven months in the approach channel, removing enough sediment to fill the old town square a hundred times.",
	"The Haiyun line's first ship, the Jade Current, was welcomed with fireboats and a lion dance on the quay.",
	"The heavy-lift vessel Storm Petrel delivered the two cranes, each taller than the cathedral spire.",
	"The first reefer ship bound directly for Haiyun, the Cold Meridian, loaded 240 containers of frozen herring.",
	"The ferry Ostrel Light, Veloria's first battery-electric vessel, made its maiden crossing in thirty-five minutes.",
	"The turbine installation vessel Sea Architect became the most photographed ship in the harbour.",
	"The cruise ship that ended the long pause, the Aurora Bay, arrived in October with fewer than half its berths filled.",
	"The Tull ferry Kittiwake rode out Storm Ilse at anchor in the lee of Marenna after the pier was damaged.",
	"The Dorsk patrol vessel Vigil hosted the signing of the Grey Shoals agreement at the Authority's pontoon.",
	"The last diesel ferry on the Kessa route, the Old Marenna, was retired and sold to a museum trust.",
}

// energy is a note each year on how the port got its power.
var energy = []string{
	"Almost all of the port's electricity came from the diesel reserve plant and imported fuel oil.",
	"The Authority installed LED lighting on the quays, its first energy-saving measure.",
	"A study of shore power for ferries was commissioned, with funding from the energy ministry.",
	"Solar panels were fitted to the roofs of the customs sheds, supplying a tenth of the office demand.",
	"The cold store was designed to run on electricity alone, anticipating a cleaner grid.",
	"The shore-power station for the electric ferry was the first high-voltage connection on the quay.",
	"The port began buying power from Sorrel Bank under a green tariff as the first turbines came online.",
	"With the interconnector in service, the diesel reserve plant behind the timber wharf closed permanently.",
	"Backup generators were installed after the cable faults, a reminder that the new grid still had weak points.",
	"Shore power for cruise ships was ordered for the passenger quay, to be ready for the 2024 season.",
	"By the end of the year about 80 percent of the port's electricity came from wind, much of it from Sorrel Bank.",
}

// themes closes the chronicle with a thematic reading of the decade.
var themes = []string{
	"Trade and partners. Port Calder entered the decade as a harbour serving Veloria and left it as a node in two trading systems. The partnership agreement with Dorsk made the short crossing over the Narrows the busiest lorry route in the country, carrying vegetables, wool and processed fish one way and machinery the other. The Haiyun connection, built on the terminal stake, the cold store and the brokers of the Lantern Quarter, tied the port to longer routes and higher-value cargo. The two relationships tested the port in different ways: Dorsk through the salted-fish duty and the Grey Shoals, Haiyun through concentration of risk and the brief mussel suspension. Officials drew the lesson that diversity of partners is itself a form of security.",
	"Fishing and the fish quay. The fish quay shrank in volume but not in importance. Landings fell by a fifth between 2014 and 2020 as cod and herring stocks declined and the quota reform took effect, and they recovered only partly afterwards. Ownership of quota concentrated in a few firms, while small boat owners left the trade or turned to kelp and mussel farming. Yet the value of what was landed rose, because the cold store and direct exports to Haiyun allowed fish to be sold frozen or fresh rather than salted. The fish auction, once the heart of the harbour, became one business among many, and its future depends on the raised market planned behind the new sea wall.",
	"Energy. No part of the port changed more than its power supply. In 2014 the cranes, the cold rooms and the ferries all ran on imported oil. By 2024 the ferries ran on batteries charged from shore, cruise ships connected to the grid overnight, and the port's electricity came mostly from Sorrel Bank. The interconnector to Dorsk allowed the old diesel plant to close, but the winter cable faults of 2022 showed that the new system had its own vulnerabilities. The Authority's engineers now speak of resilience as much as of emissions, and the generators bought after the faults remain on standby.",
	"Work and skills. The port's workforce changed in composition more than in size. Manual jobs in the stacking yard and on the fish quay declined, while jobs in maintenance, automation, energy systems and logistics grew. The strike of 2018 was the decade's sharpest conflict, and its settlement set a pattern that later projects followed: change accompanied by guaranteed retraining, delivered with Aldren University. Employers still report shortages of electricians and technicians, and the cost of housing in Port Calder makes it hard to recruit seasonal staff.",
	"Climate and water. The drought and the storm were the decade's two great shocks to the port, and both arrived from directions the plans of 2014 had barely considered. Rationing in 2020 and 2021 forced the port to save water and to give priority to the cold store and the ferries; the desalination plant on reclaimed land now protects the city against a repeat. Storm Ilse showed that the old harbour wall was no longer adequate, and the sea wall under construction in 2024 is designed for higher seas than any seen so far. Adaptation has become part of every investment decision the Authority makes.",
	"The city and its neighbourhoods. The port shaped the city around it. The incubator and the university brought young people to the north quay; the cruise boom crowded the old town and pushed up short-term lets; and the Lantern Quarter, long the port's link to Haiyun, felt the pressure of rising rents and student housing. Residents repeatedly asked to be consulted, and by the end of the decade the Authority held public meetings before every major project. The promenade on the new sea wall is the first port project designed as much for residents as for ships.",
	"Governance. The Harbour Authority itself changed. Under Maren Vollan it became more commercial, borrowing to build, selling a minority stake and courting shipping lines, but also more open, publishing environmental data and consulting neighbours. Parliament's debate over the Haiyun stake led to the golden share model that later guided foreign investment in the energy sector. The Authority's revenue more than doubled over the decade, and its debt, though higher than in 2014, is covered comfortably by income from the terminal.",
	"Outlook. The chronicle ends with open questions. Rising sea levels will require further spending on defences. A third berth would deepen the port's role as a logistics hub but also its reliance on distant partners. The fish quay must find a stable place in a smaller industry. And the balance between the port's needs and those of the people who live beside it will remain contested. What the decade has shown is that Port Calder can adapt quickly when it must; the challenge for the next decade is to adapt before it must.",
}

// policy notes the national decisions that reached the harbour each year.
var policy = []string{
	"In parliament, the port featured mainly in debates about the cost of fuel for the island ferries, which the state subsidised heavily.",
	"The government named Port Calder a national infrastructure priority, which allowed the Development Bank to lend on longer terms.",
	"Ministers defended the Haiyun stake as a commercial partnership and promised a review of foreign investment rules, which came two years later.",
	"The Fisheries Act passed by a narrow margin after a long night sitting, with members from the Kessa Isles voting against their own coalition.",
	"The Climate Act, passed that spring, obliged the Authority to publish a plan for cutting its emissions within two years.",
	"The climate council's first report singled out the ferries and the port's diesel plant as the quickest emissions cuts available.",
	"Emergency laws gave the transport ministry power to direct ferry schedules and to requisition cold storage for medical supplies.",
	"A foreign investment screening law, prompted partly by the Haiyun debate, required approval for stakes above ten percent in ports and power.",
	"After the storm the government promised that no coastal business would be left without help, though compensation took many months to arrive.",
	"The amended Climate Act required municipalities, and with them the port, to prepare adaptation plans with public consultation.",
	"The government's review of the decade's infrastructure spending called the port 'the best return on public money since the ferries were built'.",
}

// trade notes the cargo and partners behind each year's figures.
var tradeNotes = []string{
	"Most outbound cargo was salted fish, wool and potatoes, while inbound boxes carried fuel, machinery and food from Dorsk.",
	"Trade with Haiyun was still small and went mainly through transhipment in Dorsk, adding days to every journey.",
	"Tariff-free trade with Dorsk lifted lorry traffic on the Narrows ferry by a quarter within six months.",
	"Exports of processed fish to Dorsk rose strongly, while Haiyun buyers began asking for frozen rather than salted herring.",
	"Reefer exports to Haiyun started in the summer, and by December frozen herring had overtaken salted fish in value.",
	"Wind-turbine components, imported through the heavy-lift quay, became one of the port's fastest-growing cargoes.",
	"Salted-fish exports to Dorsk nearly stopped under the safeguard duty, while frozen exports to Haiyun held up.",
	"Mussel exports to Haiyun were interrupted for six weeks, and processors turned to Dorsk's fresh market to clear their stocks.",
	"Dried kelp became a regular export to Haiyun, loaded in dry containers alongside frozen fish.",
	"About a third of the terminal's cargo was linked to Haiyun lines, and Dorsk remained the largest partner by number of lorries.",
	"The port handled its first export cargo of towers from the Ostrel yard bound for a Dorsk wind farm.",
}
